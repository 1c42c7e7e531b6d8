//! Build script: compiles the phone-number automata ahead of time (see
//! `numbers.rs`), so a process never spends start-up time building them.

mod numbers;

fn main() {
    println!("cargo::rerun-if-changed=build");
    println!("cargo::rerun-if-changed=src/guardrails/number/bits.rs");
    let little_endian = std::env::var("CARGO_CFG_TARGET_ENDIAN").as_deref() != Ok("big");
    let out_dir =
        std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let output = match numbers::compile(little_endian) {
        Ok(output) => output,
        Err(err) => panic!("cannot compile the phone-number metadata: {err}"),
    };
    std::fs::write(out_dir.join("numbers.dfa"), &output.automata).expect("write numbers.dfa");
    std::fs::write(out_dir.join("numbers.rs"), &output.tables).expect("write numbers.rs");
}
