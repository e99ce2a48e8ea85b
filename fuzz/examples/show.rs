//! Prints the history a fuzz input decodes to:
//! `cargo run --manifest-path fuzz/Cargo.toml --example show -- FILE`.

fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("a readable file");
        println!(
            "{path}:\n{}",
            kram_compaction_fuzz::history::describe(&data)
        );
    }
}
