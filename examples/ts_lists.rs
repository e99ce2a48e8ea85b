//! Prints, as JSON, the lists and defaults that the package's TypeScript
//! declarations name, and the constants the API exports: read from the Rust
//! items that decide them, so neither keeps a copy. `scripts/build.mjs` runs
//! it (natively, so it adds nothing to the `.wasm`) and fills each `{{name}}`
//! in the declarations written in `src/bindings/types.rs` and `describe.rs`,
//! and the constants of `js/constants.ts`, with it.

use kram_compaction::formats::ALL_FORMATS;
use kram_compaction::history::{COMPACTION_MARKER_NAME, DEFAULT_MAX_TOKENS};
use kram_compaction::ladder::Tier;
use kram_compaction::prune::PruneOptions;
use kram_compaction::summary::prompt::REQUEST_FIELDS;
use kram_compaction::summary::reply::REPLY_SHAPES;
use kram_compaction::summary::SummaryOptions;
use kram_compaction::util::join::join;
use kram_compaction::view::Role;
use serde_json::json;

/// Every `Role`, in order. The match has no wildcard, so a new role fails to
/// compile here until it is given its place in the list.
fn all_roles() -> Vec<Role> {
    let after = |role: Option<Role>| match role {
        None => Some(Role::System),
        Some(Role::System) => Some(Role::User),
        Some(Role::User) => Some(Role::Assistant),
        Some(Role::Assistant) => Some(Role::Tool),
        Some(Role::Tool) => Some(Role::Other),
        Some(Role::Other) => None,
    };
    std::iter::successors(after(None), |&role| after(Some(role))).collect()
}

/// TypeScript written as it is: a type the Rust code declares field by
/// field or shape by shape.
fn typescript(text: String) -> serde_json::Value {
    json!({ "typescript": text })
}

fn main() {
    let prune = PruneOptions::default();
    let summary = SummaryOptions::default();
    let lists = json!({
        "MessageFormat": ALL_FORMATS.iter().map(|f| f.name()).collect::<Vec<_>>(),
        "MessageKind": all_roles().into_iter().map(Role::name).collect::<Vec<_>>(),
        "Tier": Tier::ALL.map(Tier::name),
        "protectTurns": prune.protect_turns,
        "protectTokens": prune.protect_tokens,
        "minimumSavings": prune.minimum_savings,
        "placeholder": prune.placeholder,
        "maxInputTokens": summary.max_input_tokens,
        "maxSummaryTokens": summary.max_summary_tokens,
        "toolOutputChars": summary.tool_output_chars,
        "GatewayReply": typescript(
            join(REPLY_SHAPES.iter().map(|shape| shape.typescript), "\n  | "),
        ),
        "SummaryRequest": typescript(format!(
            "{{\n{}}}",
            REQUEST_FIELDS
                .iter()
                .map(|(name, ts)| format!("  {name}: {ts};\n"))
                .collect::<String>()
        )),
        "COMPACTION_MARKER_NAME": COMPACTION_MARKER_NAME,
        "DEFAULT_MAX_TOKENS": DEFAULT_MAX_TOKENS,
    });
    println!("{lists}");
}
