//! The ARC model's kstat rendering parses back with `parse_arcstats`, has the
//! field set of its release (catalogue), and keeps the §6.5 identities.

use arclab_arc::model::{ArcCache, ArcConfig, Behaviour, field_names, render_arcstats};
use arclab_arc::{Kind, Request, block_key};
use arclab_zfs::arcstats::parse_arcstats;
use arclab_zfs::catalog::field_in;

fn busy(preset: &str) -> ArcCache {
    let mut cfg = ArcConfig::new(4 << 30).with_behaviour(Behaviour::preset(preset).unwrap());
    cfg.arc_max = Some(256 << 20);
    let mut a = ArcCache::new(cfg);
    for i in 0..40_000u64 {
        let mut r = Request::read(
            i * 100_000,
            block_key((i % 7) as u32, (i % 5 == 0) as u8, i % 3000),
            16384,
        );
        if i % 3 == 0 {
            r.kind = Kind::Metadata;
        }
        r.prefetch = i % 11 == 0;
        a.access(&r);
    }
    a.set_pinned(30 << 20, 10 << 20, 5 << 20);
    a.set_other_demand(3 << 30);
    a.advance_to(40_000 * 100_000 + 3_000_000_000);
    a
}

#[test]
fn rendering_round_trips_for_every_preset() {
    for preset in ["0.7.13", "2.1", "2.2", "2.3.0", "2.3"] {
        let a = busy(preset);
        let s = a.stats();
        let text = render_arcstats(&s, a.behaviour());
        let snap =
            parse_arcstats(&text, preset).unwrap_or_else(|e| panic!("{preset}: {e}\n{text}"));
        assert!(snap.warnings.is_empty(), "{preset}: {:?}", snap.warnings);
        let names: Vec<&str> = snap.names().collect();
        assert_eq!(names, field_names(a.behaviour()), "{preset}");
        // Same field set as the catalogue says the release exports on Linux.
        let rel = a.behaviour().release;
        for n in &names {
            assert!(field_in(n, rel, false), "{preset}: {n} not in {rel}");
        }
        let g = |n: &str| snap.get_u64(n).unwrap_or_else(|| panic!("{preset}: {n}"));
        assert_eq!(g("size"), s.size);
        assert_eq!(
            g("size"),
            g("data_size")
                + g("metadata_size")
                + g("hdr_size")
                + g("dbuf_size")
                + g("dnode_size")
                + g("bonus_size")
        );
        assert_eq!(
            g("arc_meta_used"),
            g("metadata_size") + g("hdr_size") + g("dbuf_size") + g("dnode_size") + g("bonus_size")
        );
        assert_eq!(
            g("data_size") + g("metadata_size"),
            g("compressed_size") + g("overhead_size")
        );
        assert_eq!(
            g("data_size") + g("metadata_size"),
            g("anon_size")
                + g("mru_size")
                + g("mfu_size")
                + if a.behaviour().access_2_2 {
                    g("uncached_size")
                } else {
                    0
                }
        );
        assert!(g("c_min") <= g("c") && g("c") <= g("c_max"));
        assert_eq!(
            snap.get("memory_available_bytes").map(|v| v.as_i128()),
            Some(i128::from(s.memory_available_bytes))
        );
        println!(
            "{preset}: {} rows, size {} c {} hits {} misses {}",
            names.len(),
            g("size"),
            g("c"),
            g("hits"),
            g("misses")
        );
    }
}
