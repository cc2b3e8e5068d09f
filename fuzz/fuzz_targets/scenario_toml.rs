#![no_main]

//! A scenario TOML description (`whatif --scenario FILE.toml`): parse and
//! check it, then build its ARC configuration with and without a cap, walk
//! its demand curve, and print it back.
use arclab_sim::scenario::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let s = match Scenario::from_toml_str(&text, "fuzz.toml") {
        Ok(s) => s,
        Err(e) => {
            assert!(e.to_string().starts_with("fuzz.toml: "), "{e}");
            return;
        }
    };
    // A checked scenario's own configuration is valid.
    s.arc_config(None).expect("checked scenario has a valid config");
    for cap in [64 << 20, 1 << 30, s.ram_bytes / 2, s.ram_bytes] {
        let _ = s.arc_config(Some(cap));
    }
    for t in [0, 1, 1_000_000_000, 1 << 40, u64::MAX] {
        let _ = s.demand_at(t);
    }
    let again = Scenario::from_toml_str(&s.to_toml_string(), "again.toml")
        .expect("a checked scenario prints back to valid TOML");
    assert_eq!(again, s);
});
