//! The per-pool read history, `/proc/spl/kstat/zfs/<pool>/reads`.
//!
//! Linux OpenZFS keeps, per pool, a ring of its last `zfs_read_history`
//! `arc_read()` calls (`module/zfs/spa_stats.c`, unchanged in layout from
//! 0.8 to 2.3). The file is a `procfs_list`: one header line, then one line
//! per read, oldest first:
//!
//! ```text
//! UID      start            objset   object   level    blkid    aflags   origin                   pid      process
//! 17       1234567890123    0x36     128      0        9        0x4      <24 spaces>              1301     dd
//! ```
//!
//! `UID` is the list's node id (1, 2, … for the module's lifetime, never
//! reused), `start` the `gethrtime()` nanoseconds of the read, `objset` in
//! hex, `object`, `level` and `blkid` signed decimal, `aflags` the ARC flags
//! in hex (`ARC_FLAG_PREFETCH` = 0x4, `ARC_FLAG_CACHED` = 0x8: a hit, logged
//! only with `zfs_read_history_hits=1`). `origin` is never filled in by
//! stock OpenZFS (the column prints 24 blanks) and `process` is the task's
//! `comm`, which may contain spaces.

use std::fmt;

/// The column names of the header line, in order.
pub const COLUMNS: [&str; 10] = [
    "UID", "start", "objset", "object", "level", "blkid", "aflags", "origin", "pid", "process",
];

/// One line of a `reads` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadRow {
    /// The list node id: increases by one per logged read.
    pub uid: u64,
    /// `gethrtime()` of the read, ns.
    pub start_ns: u64,
    /// Objset id (0 = the pool's MOS).
    pub objset: u64,
    /// Object number in the objset.
    pub object: u64,
    /// Indirection level: 0 = data, > 0 indirect, < 0 special (objset root,
    /// ZIL).
    pub level: i64,
    /// Block id at that level (the kernel prints it signed).
    pub blkid: i64,
    /// ARC flags.
    pub aflags: u32,
    /// `origin` (empty in stock OpenZFS).
    pub origin: String,
    /// The reading task's pid.
    pub pid: i64,
    /// The reading task's `comm`.
    pub process: String,
}

/// What is wrong with a `reads` file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: line {line}: {message}")]
pub struct ReadsError {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Longest line accepted (a real line is ~130 bytes; `process` is at most
/// 15 bytes and `origin` 23).
const MAX_LINE: usize = 512;

/// Parse a whole `reads` file. An empty file (no header yet) is an empty
/// history; otherwise the first line must be the header of [`COLUMNS`].
pub fn parse_reads(text: &str, file: &str) -> Result<Vec<ReadRow>, ReadsError> {
    let mut rows = Vec::new();
    parse_reads_into(text, file, &mut rows, 0)?;
    Ok(rows)
}

/// [`parse_reads`] appending to `rows` the lines with a UID above
/// `after_uid` (a poll re-reads the whole ring; lines seen before cost only
/// their UID's parse). A last line without its newline is taken as cut
/// short by a concurrent read and dropped (the next poll sees it whole);
/// every other malformed line is an error. Returns the newest UID in the
/// ring (`None` when it is empty), skipped lines included.
pub fn parse_reads_into(
    text: &str,
    file: &str,
    rows: &mut Vec<ReadRow>,
    after_uid: u64,
) -> Result<Option<u64>, ReadsError> {
    let err = |line: usize, message: String| ReadsError {
        file: file.to_string(),
        line,
        message,
    };
    let mut lines = text.split_inclusive('\n').enumerate();
    let Some((_, header)) = lines.next() else {
        return Ok(None);
    };
    let mut newest = None;
    let cols: Vec<&str> = header.split_whitespace().collect();
    if cols != COLUMNS {
        return Err(err(
            1,
            format!(
                "not a read-history header: expected `{}`, found `{}`",
                COLUMNS.join(" "),
                header.trim_end().escape_debug()
            ),
        ));
    }
    for (i, raw) in lines {
        let n = i + 1;
        let Some(line) = raw.strip_suffix('\n') else {
            // Cut short by the snapshot: dropped, taken next time.
            break;
        };
        if line.trim().is_empty() {
            continue;
        }
        if after_uid > 0
            && let Some(uid) = line
                .split_ascii_whitespace()
                .next()
                .and_then(|u| u.parse::<u64>().ok())
            && uid <= after_uid
        {
            newest = Some(uid);
            continue;
        }
        if line.len() > MAX_LINE {
            return Err(err(
                n,
                format!(
                    "line of {} bytes (a read-history line is < {MAX_LINE})",
                    line.len()
                ),
            ));
        }
        let row = parse_row(line).map_err(|m| err(n, m))?;
        newest = Some(row.uid);
        rows.push(row);
    }
    Ok(newest)
}

fn parse_row(line: &str) -> Result<ReadRow, String> {
    let mut it = line.split_whitespace();
    let mut field = |name: &str| it.next().ok_or_else(|| format!("missing column `{name}`"));
    let uid = field("UID")?;
    let start = field("start")?;
    let objset = field("objset")?;
    let object = field("object")?;
    let level = field("level")?;
    let blkid = field("blkid")?;
    let aflags = field("aflags")?;
    let rest: Vec<&str> = it.collect();
    let num = |name: &str, v: &str| -> Result<u64, String> {
        v.parse::<u64>()
            .map_err(|_| format!("{name} `{}` is not an unsigned integer", v.escape_debug()))
    };
    let signed = |name: &str, v: &str| -> Result<i64, String> {
        v.parse::<i64>()
            .map_err(|_| format!("{name} `{}` is not an integer", v.escape_debug()))
    };
    let hex = |name: &str, v: &str| -> Result<u64, String> {
        v.strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| format!("{name} `{}` is not 0x-prefixed hex", v.escape_debug()))
    };
    // origin is blank in stock OpenZFS: then `rest` is `pid process…`.
    let (origin, pid, process) = match rest.as_slice() {
        [] => return Err("missing columns `pid` and `process`".into()),
        [first, pid, tail @ ..] if first.parse::<i64>().is_err() => (*first, *pid, tail),
        [pid, tail @ ..] => ("", *pid, tail),
    };
    let aflags = hex("aflags", aflags)?;
    Ok(ReadRow {
        uid: num("UID", uid)?,
        start_ns: num("start", start)?,
        objset: hex("objset", objset)?,
        object: signed("object", object)? as u64,
        level: signed("level", level)?,
        blkid: signed("blkid", blkid)?,
        aflags: u32::try_from(aflags)
            .map_err(|_| format!("aflags 0x{aflags:x} wider than 32 bits"))?,
        origin: origin.to_string(),
        pid: signed("pid", pid)?,
        process: process.join(" "),
    })
}

impl fmt::Display for ReadRow {
    /// The line exactly as `spa_read_history_show` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<8} {:<16} 0x{:<6x} {:<8} {:<8} {:<8} 0x{:<6x} {:<24} {:<8} {:<16}",
            self.uid,
            self.start_ns,
            self.objset,
            self.object as i64,
            self.level,
            self.blkid,
            self.aflags,
            self.origin,
            self.pid,
            self.process
        )
    }
}

/// The header line exactly as `spa_read_history_show_header` prints it.
pub fn header_line() -> String {
    format!(
        "{:<8} {:<16} {:<8} {:<8} {:<8} {:<8} {:<8} {:<24} {:<8} {:<16}\n",
        COLUMNS[0],
        COLUMNS[1],
        COLUMNS[2],
        COLUMNS[3],
        COLUMNS[4],
        COLUMNS[5],
        COLUMNS[6],
        COLUMNS[7],
        COLUMNS[8],
        COLUMNS[9]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(uid: u64, process: &str) -> ReadRow {
        ReadRow {
            uid,
            start_ns: 5_000_000_123,
            objset: 0x36,
            object: 128,
            level: 0,
            blkid: 9,
            aflags: 0x8 | 0x4,
            origin: String::new(),
            pid: 1301,
            process: process.into(),
        }
    }

    #[test]
    fn the_kernel_layout_round_trips() {
        // Widths from spa_read_history_show{,_header} (module/zfs/spa_stats.c,
        // OpenZFS 2.3.9): "%-8llu %-16llu 0x%-6llx %-8lli %-8lli %-8lli 0x%-6x
        // %-24s %-8i %-16s\n".
        let text = format!("{}{}{}", header_line(), row(1, "dd"), row(2, "Web Content"));
        assert!(text.starts_with("UID      start            objset   object   level    blkid    aflags   origin                   pid      process         \n"));
        assert!(text.contains("\n1        5000000123       0x36     128      0        9        0xc                               1301     dd              \n"));
        let rows = parse_reads(&text, "reads").unwrap();
        assert_eq!(rows, [row(1, "dd"), row(2, "Web Content")]);
    }

    #[test]
    fn special_levels_and_blkids_are_signed() {
        let mut r = row(3, "z_wr_iss");
        r.level = -1;
        r.blkid = -1;
        r.object = 0;
        let text = format!("{}{}", header_line(), r);
        assert_eq!(parse_reads(&text, "reads").unwrap(), [r]);
    }

    #[test]
    fn an_unfinished_last_line_is_left_for_the_next_poll() {
        let full = format!("{}{}", header_line(), row(1, "dd"));
        let text = format!("{full}2        5000");
        assert_eq!(parse_reads(&text, "reads").unwrap(), [row(1, "dd")]);
        assert!(parse_reads("", "reads").unwrap().is_empty());
    }

    #[test]
    fn a_foreign_header_or_bad_field_names_file_and_line() {
        let e = parse_reads("txg birth state\n", "/p/tank/reads").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(
            e.to_string()
                .starts_with("/p/tank/reads: line 1: not a read-history header")
        );
        let text = format!("{}{}1 2 zz 4 0 0 0x0 1 x\n", header_line(), row(1, "dd"));
        let e = parse_reads(&text, "reads").unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (3, "objset `zz` is not 0x-prefixed hex")
        );
        let text = format!("{}1 2 0x1 4\n", header_line());
        assert_eq!(
            parse_reads(&text, "reads").unwrap_err().message,
            "missing column `level`"
        );
    }
}
