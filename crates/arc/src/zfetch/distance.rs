//! Prefetch distance arithmetic: the 2.1.6+ ramp and the 0.7–2.1.5
//! "double how far ahead" rule (spec §10.3 item 6, §10.5).

use super::config::ZfetchConfig;
use super::stream::Stream;

/// `P2ROUNDUP(blk, 1 << epbs) >> epbs`.
pub(crate) fn l1_index(blk: u64, epbs: u32) -> u64 {
    blk.div_ceil(1 << epbs)
}

/// `dbuf_prefetch_impl` skips L1 blocks whose first data block is past EOF.
pub(crate) fn l1_exists(b: u64, epbs: u32, maxblkid: u64) -> bool {
    b <= maxblkid && (b << epbs) <= maxblkid
}

/// The HEAD distance ramp (2.1.6+), spec §10.3 item 6. Returns `zs_ipf_end`
/// before the update (the lower bound of the prescient step).
pub(crate) fn ramp(
    zs: &mut Stream,
    cfg: &ZfetchConfig,
    adv: u64,
    end: u64,
    fetch_data: bool,
    dbs: u32,
    io_active: u64,
) -> u64 {
    let nbytes = adv << dbs;
    let pf_nblks = if fetch_data {
        let brake_off = !cfg.io_active_brake || io_active < cfg.c_max >> (4 + dbs);
        if zs.pf_dist < nbytes {
            zs.pf_dist = nbytes;
        } else if zs.pf_dist < u64::from(cfg.min_distance) && (zs.pf_dist < 1 << dbs || brake_off) {
            zs.pf_dist *= 2;
        } else if zs.more {
            zs.pf_dist += zs.pf_dist / 8;
        }
        zs.more = false;
        zs.pf_dist = zs.pf_dist.min(u64::from(cfg.max_distance));
        zs.pf_dist >> dbs
    } else {
        0
    };
    zs.pf_start = zs.pf_start.max(end);
    zs.pf_end = zs.pf_end.max(end + pf_nblks);
    let n = if cfg.head_tweaks {
        nbytes.max(1 << dbs)
    } else {
        nbytes
    };
    zs.ipf_dist = if zs.ipf_dist < n { n } else { zs.ipf_dist * 2 };
    zs.ipf_dist = zs.ipf_dist.min(u64::from(cfg.max_idistance));
    let ipf_nblks = zs.ipf_dist >> dbs;
    zs.ipf_start = zs.ipf_start.max(zs.pf_end);
    let old_ipf_end = zs.ipf_end;
    zs.ipf_end = zs.ipf_end.max(zs.pf_end + ipf_nblks);
    old_ipf_end
}

/// 0.7 – 2.1.5: "double how far ahead we are" via `zs_pf_blkid` /
/// `zs_ipf_blkid` (kept in `pf_end` / `ipf_end`), capped at the distances.
pub(crate) fn legacy_distances(
    zs: &mut Stream,
    cfg: &ZfetchConfig,
    blkid: u64,
    nblks: u64,
    end: u64,
    fetch_data: bool,
    dbs: u32,
) {
    let (blkid, nblks, end) = (blkid as i64, nblks as i64, end as i64);
    let pf_start = (zs.pf_end as i64).max(end);
    zs.pf_start = zs.pf_start.max(end as u64);
    zs.ipf_start = zs.ipf_start.max(end as u64);
    let pf_nblks = if fetch_data {
        let ahead = zs.pf_end as i64 - blkid + nblks;
        let room = i64::from(cfg.max_distance >> dbs) - (pf_start - end);
        ahead.min(room).max(0)
    } else {
        0
    };
    zs.pf_end = (pf_start + pf_nblks) as u64;
    let pf_end = zs.pf_end as i64;
    let ipf_start = (zs.ipf_end as i64).max(pf_end);
    let ahead = zs.ipf_end as i64 - blkid + nblks + pf_nblks;
    let room = i64::from(cfg.max_idistance >> dbs) - (ipf_start - pf_end);
    zs.ipf_end = (ipf_start + ahead.min(room).max(0)) as u64;
}
