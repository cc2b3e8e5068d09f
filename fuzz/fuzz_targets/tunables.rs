#![no_main]

//! Tunables files of every kind (the first byte picks it), then the checker
//! for each OS and release, and the cap-file editors.
use arclab_zfs::limits::{Os, ZfsVersion};
use arclab_zfs::tune::apply;
use arclab_zfs::tune::check::{CheckOptions, check};
use arclab_zfs::tune::files::{FileKind, parse_text};
use arclab_zfs::tune::Target;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let kind = match sel % 5 {
        0 => None,
        1 => Some(FileKind::Modprobe),
        2 => Some(FileKind::LoaderConf),
        3 => Some(FileKind::SysctlConf),
        _ => Some(FileKind::KeyValue),
    };
    if let Ok(f) = parse_text(&text, "fuzz.conf", kind) {
        for (os, target) in [
            (Os::Linux, Target::OpenZfs(ZfsVersion::V0_6)),
            (Os::Linux, Target::OpenZfs(ZfsVersion::V2_3)),
            (Os::FreeBSD, Target::FreeBsdLegacy),
        ] {
            let ram = (sel & 0x80 != 0).then_some(u64::from(sel) << 28);
            let _ = check(
                std::slice::from_ref(&f),
                &CheckOptions {
                    ram_bytes: ram,
                    os: Some(os),
                    target: Some(target),
                },
            );
        }
    }
    let _ = apply::edit_modprobe(&text, 8 << 30);
    let _ = apply::edit_loader(&text, "vfs.zfs.arc.max=\"1\"");
});
