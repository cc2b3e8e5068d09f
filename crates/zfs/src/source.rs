//! Where in the OpenZFS source each ARC limit is computed, for commands that
//! show a limit next to its formula (`arclab limits`). The release a
//! formula applies to is the `applies_to` of its
//! [`Derivation`](arclab_arc::limits::Derivation); this gives the file and
//! function of that release.
//!
//! ```
//! use arclab_zfs::source::limit_source;
//! use arclab_arc::limits::{Os, ZfsVersion};
//! assert_eq!(limit_source("c_min", Os::Linux, ZfsVersion::V2_3), Some("module/zfs/arc.c: arc_init()"));
//! assert_eq!(limit_source("nope", Os::Linux, ZfsVersion::V2_3), None);
//! ```

use arclab_arc::limits::{Os, ZfsVersion};

/// The OpenZFS file and function that compute limit `name` (`c_min`,
/// `c_max`, `arc_sys_free`, `arc_dnode_limit`, `arc_meta_limit`,
/// `zfs_arc_max`, `zfs_arc_min`) on `os` with release set `v`; `None` for an
/// unknown name or where no code computes it (FreeBSD's `arc_sys_free` is a
/// plain tunable, 0 unless set).
pub fn limit_source(name: &str, os: Os, v: ZfsVersion) -> Option<&'static str> {
    let openzfs = v >= ZfsVersion::V2_0;
    Some(match name {
        "c_min" | "arc_meta_limit" => "module/zfs/arc.c: arc_init()",
        "c_max" if !openzfs => "module/zfs/arc.c: arc_init()",
        "c_max" if os == Os::FreeBSD => {
            "module/os/freebsd/zfs/arc_os.c: arc_default_max(), called from module/zfs/arc.c: arc_init()"
        }
        "c_max" => {
            "module/os/linux/zfs/arc_os.c: arc_default_max(), called from module/zfs/arc.c: arc_init()"
        }
        "arc_sys_free" if os == Os::FreeBSD => return None,
        "arc_sys_free" if !openzfs => "module/zfs/arc.c: arc_init()",
        "arc_sys_free" => "module/os/linux/zfs/arc_os.c: arc_set_sys_free()",
        "arc_dnode_limit" => "module/zfs/arc.c: arc_init(), arc_tuning_update()",
        "zfs_arc_max" | "zfs_arc_min" => "module/zfs/arc.c: arc_init(), arc_tuning_update()",
        _ => return None,
    })
}
