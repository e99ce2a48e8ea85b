//! The core stays pure Rust: only `src/bindings/` may know about JavaScript,
//! so everything else builds and is tested natively.

use std::fs;
use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn only_bindings_name_wasm_bindgen_or_js_sys() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let bindings = src.join("bindings");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 5,
        "found only {} files under src/",
        files.len()
    );
    let offenders: Vec<String> = files
        .iter()
        .filter(|path| !path.starts_with(&bindings))
        .filter(|path| {
            let text = fs::read_to_string(path).expect("a readable source file");
            text.contains("wasm_bindgen") || text.contains("js_sys")
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "pure modules name wasm_bindgen/js_sys: {offenders:?}"
    );
    assert!(
        files.iter().any(|path| path.starts_with(&bindings)
            && fs::read_to_string(path).unwrap().contains("wasm_bindgen")),
        "the check must see the bindings that do name wasm_bindgen"
    );
}
