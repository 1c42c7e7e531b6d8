//! Build script: compiles the phone-number automata (see `numbers.rs`) and
//! libphonenumber's time-zone map (see `timezones.rs`) ahead of time, so a
//! process never spends start-up time building them.

mod numbers;
mod timezones;

fn main() {
    println!("cargo::rerun-if-changed=build");
    println!("cargo::rerun-if-changed=data/timezones/map_data.txt");
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
    let map_data = std::fs::read_to_string("data/timezones/map_data.txt")
        .expect("read data/timezones/map_data.txt");
    let zones = match timezones::compile(&map_data) {
        Ok(zones) => zones,
        Err(err) => panic!("cannot compile the time-zone map: {err}"),
    };
    std::fs::write(out_dir.join("timezones.rs"), zones).expect("write timezones.rs");
}
