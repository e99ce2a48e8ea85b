#!/usr/bin/env node
// kram-compact [FILE|-] [--max-tokens N] [--out FILE] [--json]
// Runs the compaction ladder on a stored history (a JSON array or JSONL) and
// reports each tier. Without FILE it runs on the embedded sample session.
// A gateway comes from KRAM_BASE_URL, KRAM_API_KEY and KRAM_MODEL
// (OpenAI-compatible); without one, compaction is skipped, never faked.
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  ContextManager,
  DEFAULT_MAX_TOKENS,
  VERSION,
  describeMessages,
  effectiveHistory,
  emergencyPrune,
  estimateTokens,
  openAIChatGateway,
  pruneForModel,
  readStoredHistory,
  StoredHistoryError,
} from "kram-compaction";

const USAGE = "usage: kram-compact [FILE|-] [--max-tokens N] [--out FILE] [--json]";
const HELP = `${USAGE}

Runs the compaction ladder (effective history, pruning, compaction, the
emergency cut) on a stored history and reports each tier.

  FILE              a JSON array of messages, or JSONL (one message a line);
                    - reads stdin; without FILE, the embedded sample session
  --max-tokens N    the budget in estimated tokens (default ${DEFAULT_MAX_TOKENS})
  --out FILE        write the messages the ladder would send
  --json            print the report as JSON
  --help, -h        this text
  --version         the package's version

Environment (compaction runs only when a gateway is configured):
  KRAM_BASE_URL     an OpenAI-compatible server, such as http://127.0.0.1:11434/v1
  KRAM_MODEL        the model that writes the summary
  KRAM_API_KEY      sent as a Bearer token, if the server needs one

Exit codes: 0 done, 1 unreadable or invalid input, 2 a bad option.`;

class CliError extends Error {
  constructor(message, code = 1) {
    super(message);
    this.code = code;
  }
}

/** The command line, read with Node's util.parseArgs. */
function readArgs(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        "max-tokens": { type: "string" },
        out: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    });
  } catch (error) {
    // Node's own words, shortened to the part that names the option.
    const unknown = error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && /'([^']+)'/.exec(error.message)?.[1];
    const missing = error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && /'(--[a-z-]+)/.exec(error.message)?.[1];
    const what = unknown ? `unknown option ${unknown}` : missing ? `${missing} needs a value` : error.message.split("\n")[0];
    throw new CliError(`${what}; ${USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) throw Object.assign(new CliError(HELP, 0), { help: true });
  if (values.version) throw Object.assign(new CliError(VERSION, 0), { help: true });
  if (positionals.length > 1) throw new CliError(`one FILE at most; ${USAGE}`, 2);
  let maxTokens = DEFAULT_MAX_TOKENS;
  if (values["max-tokens"] !== undefined) {
    const text = values["max-tokens"];
    maxTokens = Number(text);
    if (!/^\d+$/.test(text) || !(maxTokens > 0)) throw new CliError(`--max-tokens must be a positive whole number, got ${text}`, 2);
  }
  return { file: positionals[0], maxTokens, out: values.out, json: values.json ?? false };
}

/** The history in FILE (or stdin for "-"): a JSON array, or one message per line. */
function readHistory(file) {
  const source = file ?? new URL("../data/sample-session.json", import.meta.url);
  const name = file === undefined ? "the sample session" : file === "-" ? "stdin" : file;
  let text;
  try {
    text = readFileSync(file === "-" ? 0 : source, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${name}: ${error.code === "ENOENT" ? "no such file" : error.message}`);
  }
  let messages;
  try {
    ({ messages } = readStoredHistory(text));
  } catch (error) {
    if (!(error instanceof StoredHistoryError)) throw error;
    const at = error.line === undefined ? "" : `line ${error.line}${error.column === undefined ? "" : `, column ${error.column}`}: `;
    throw new CliError(`${name} is not valid ${error.shape === "JSONL" ? "JSONL" : "JSON"}: ${at}${error.reason}`);
  }
  if (messages.length === 0) throw new CliError(`${name} holds no messages`);
  return { name, messages };
}

/** The index (in `all`) and role of each message that `keep` does not keep. */
function listed(messages, indexes, roles, keep) {
  return messages.flatMap((m, i) => (keep(m, i) ? [] : [{ index: indexes[i], role: roles[indexes[i]] }]));
}

function gatewayFromEnv(env) {
  const { KRAM_BASE_URL: baseURL, KRAM_API_KEY: apiKey, KRAM_MODEL: model } = env;
  if (!baseURL || !model) return undefined;
  return { gateway: openAIChatGateway({ baseURL, apiKey }), model, baseURL };
}

/** A one-line progress bar on stderr, only when it is a terminal. */
function progressBar(stream) {
  if (!stream.isTTY) return undefined;
  return ({ done, total }) => {
    const width = 30;
    const filled = Math.round((done / total) * width);
    stream.write(`\rsummarising [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}${done === total ? "\n" : ""}`);
  };
}

async function run(argv, env) {
  const args = readArgs(argv);
  const { name, messages: all } = readHistory(args.file);
  let description;
  try {
    description = describeMessages(all);
  } catch (error) {
    throw new CliError(`${name}: ${error.message}`);
  }
  const roles = description.messages.map((m) => m.role);
  const effective = effectiveHistory(all);
  // Where each effective message is in `all`: the leading system messages,
  // then everything from the newest marker on.
  const at = new Map(all.map((m, i) => [m, i]));
  const indexes = effective.map((m) => at.get(m));
  const pruned = pruneForModel(effective, { maxTokens: args.maxTokens });
  const emergency = emergencyPrune(pruned, args.maxTokens);
  const kept = new Set(emergency);
  const configured = gatewayFromEnv(env);
  const report = {
    version: VERSION,
    source: name,
    maxTokens: args.maxTokens,
    all: { format: description.format, messages: all.length, tokens: estimateTokens(all) },
    effective: { messages: effective.length, tokens: estimateTokens(effective), from: indexes.find((i, j) => i !== j) ?? 0 },
    pruned: {
      messages: pruned.length,
      tokens: estimateTokens(pruned),
      cleared: listed(pruned, indexes, roles, (m, i) => m === effective[i]),
    },
    compaction: configured ? undefined : { skipped: "no gateway configured (set KRAM_BASE_URL and KRAM_MODEL, and KRAM_API_KEY if it needs one)" },
    emergency: {
      messages: emergency.length,
      tokens: estimateTokens(emergency),
      dropped: listed(pruned, indexes, roles, (m) => kept.has(m)),
    },
  };
  const ctx = new ContextManager({
    gateway: configured?.gateway,
    model: configured?.model,
    maxTokens: args.maxTokens,
    compact: { onProgress: progressBar(process.stderr) },
  });
  const prepared = await ctx.prepare(all);
  if (configured) {
    report.compaction =
      prepared.tier === "compacted"
        ? { model: configured.model, messages: prepared.messages.length, tokens: prepared.tokensAfter, marker: prepared.append[0] }
        : { failed: prepared.reason };
  }
  report.result = { tier: prepared.tier, reason: prepared.reason, messages: prepared.messages.length, tokens: prepared.tokensAfter, append: prepared.append.length };
  if (args.out) {
    try {
      writeFileSync(args.out, JSON.stringify(prepared.messages, null, 2) + "\n");
    } catch (error) {
      throw new CliError(`cannot write ${args.out}: ${error.message}`);
    }
  }
  return args.json ? JSON.stringify(report, null, 2) : text(report);
}

function text(r) {
  const row = (label, tier) => `  ${label.padEnd(12)} ${String(tier.messages).padStart(5)} messages ${String(tier.tokens).padStart(8)} estimated tokens`;
  const indices = (items) => (items.length === 0 ? "none" : items.map((x) => `#${x.index} ${x.role}`).join(", "));
  const lines = [
    `kram-compaction ${r.version}: ${r.source}, budget ${r.maxTokens} estimated tokens`,
    row("stored", r.all) + ` (${r.all.format})`,
    row("effective", r.effective) + (r.effective.from > 0 ? ` (from the marker at #${r.effective.from})` : ""),
    row("pruned", r.pruned),
    `    cleared tool results: ${indices(r.pruned.cleared)}`,
  ];
  if (r.compaction.skipped) lines.push(`  compaction   skipped: ${r.compaction.skipped}`);
  else if (r.compaction.failed) lines.push(`  compaction   failed: ${r.compaction.failed}`);
  else lines.push(row("compacted", r.compaction), `    marker (${r.compaction.model}):`, ...String(r.compaction.marker.content ?? JSON.stringify(r.compaction.marker)).split("\n").map((l) => `      ${l}`));
  lines.push(row("emergency", r.emergency), `    dropped: ${indices(r.emergency.dropped)}`);
  lines.push(`result: ${r.result.tier}, ${r.result.messages} messages, ${r.result.tokens} estimated tokens (${r.result.reason})`);
  if (r.result.append > 0) lines.push(`  ${r.result.append} messages to append to the store: the marker and the newest turn`);
  return lines.join("\n");
}

try {
  console.log(await run(process.argv.slice(2), process.env));
} catch (error) {
  if (error instanceof CliError) {
    (error.help ? process.stdout : process.stderr).write(`${error.help ? "" : "kram-compact: "}${error.message}\n`);
    process.exitCode = error.code;
  } else {
    process.stderr.write(`kram-compact: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
