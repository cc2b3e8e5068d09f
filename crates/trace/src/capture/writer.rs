//! The `.arct` writer.

use std::hash::BuildHasherDefault;
use std::io::{self, Write};

use super::*;
use arclab_arc::slab::KeyHasher;

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Writes a capture as records arrive; every [`flush`](Self::flush) ends a
/// block, so a file cut later loses at most the records pushed since.
///
/// `W` should be buffered or a file (each block is two `write_all` calls).
pub struct CaptureWriter<W: Write> {
    w: W,
    cctx: zstd::bulk::Compressor<'static>,
    buf: Vec<u8>,
    pending: usize,
    pools: hashbrown::HashMap<String, u16, BuildHasherDefault<KeyHasher>>,
    datasets: hashbrown::HashMap<(u16, u64), (String, u32), BuildHasherDefault<KeyHasher>>,
    new_dict: Dictionary,
    records: u64,
}

impl<W: Write> std::fmt::Debug for CaptureWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureWriter")
            .field("records", &self.records)
            .field("pending", &self.pending)
            .field("pools", &self.pools.len())
            .finish_non_exhaustive()
    }
}

impl<W: Write> CaptureWriter<W> {
    /// Start a capture: writes the file header to `w`.
    pub fn new(mut w: W, header: &CaptureHeader) -> io::Result<Self> {
        let json = serde_json::to_vec(header)?;
        if json.len() > MAX_HEADER_LEN as usize {
            return Err(invalid(format!(
                "capture header of {} bytes (at most {MAX_HEADER_LEN})",
                json.len()
            )));
        }
        let mut head = Vec::with_capacity(FILE_HEADER_SIZE + json.len());
        head.extend_from_slice(&MAGIC);
        head.extend_from_slice(&VERSION.to_le_bytes());
        head.extend_from_slice(&0u16.to_le_bytes());
        head.extend_from_slice(&(json.len() as u32).to_le_bytes());
        head.extend_from_slice(&json);
        w.write_all(&head)?;
        Ok(CaptureWriter {
            w,
            cctx: zstd::bulk::Compressor::new(ZSTD_LEVEL)?,
            buf: Vec::new(),
            pending: 0,
            pools: Default::default(),
            datasets: Default::default(),
            new_dict: Dictionary::default(),
            records: 0,
        })
    }

    /// The index of pool `name`, added (and queued into the next dictionary
    /// block) when new. At most 65,536 pools.
    pub fn add_pool(&mut self, name: &str) -> io::Result<u16> {
        if let Some(&i) = self.pools.get(name) {
            return Ok(i);
        }
        let index = u16::try_from(self.pools.len())
            .map_err(|_| invalid("more than 65,536 pools".to_string()))?;
        self.pools.insert(name.to_string(), index);
        self.new_dict.pools.push(Pool {
            index,
            name: name.to_string(),
        });
        Ok(index)
    }

    /// Queue a dataset for the next dictionary block (written before the
    /// next records block). Its pool must have been added; a dataset already
    /// written with the same name and recordsize is not repeated.
    pub fn add_dataset(&mut self, d: Dataset) -> io::Result<()> {
        if d.pool as usize >= self.pools.len() {
            return Err(invalid(format!(
                "dataset {}: pool index {} was not added",
                d.name, d.pool
            )));
        }
        let value = (d.name.clone(), d.recordsize);
        if self.datasets.get(&(d.pool, d.objset)) == Some(&value) {
            return Ok(());
        }
        self.datasets.insert((d.pool, d.objset), value);
        self.new_dict.datasets.push(d);
        Ok(())
    }

    /// Buffer a record; a records block is written every
    /// [`RECORDS_PER_BLOCK`] records. Its pool must have been added.
    pub fn push(&mut self, r: &CaptureRecord) -> io::Result<()> {
        if r.pool as usize >= self.pools.len() {
            return Err(invalid(format!(
                "record of pool index {} which was not added",
                r.pool
            )));
        }
        self.buf.extend_from_slice(&r.to_bytes());
        self.pending += 1;
        self.records += 1;
        if self.pending >= RECORDS_PER_BLOCK {
            self.write_pending()?;
        }
        Ok(())
    }

    /// Write the pending dictionary and records blocks and flush `W`.
    pub fn flush(&mut self) -> io::Result<()> {
        self.write_pending()?;
        self.w.flush()
    }

    /// Records pushed so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The output (holding the blocks written so far).
    pub fn get_ref(&self) -> &W {
        &self.w
    }

    /// Flush, write the summary block, flush, and give `W` back.
    pub fn finish(mut self, summary: &CaptureSummary) -> io::Result<W> {
        self.write_pending()?;
        let json = serde_json::to_vec(summary)?;
        self.write_block(KIND_SUMMARY, 1, &json)?;
        self.w.flush()?;
        Ok(self.w)
    }

    fn write_pending(&mut self) -> io::Result<()> {
        if !self.new_dict.pools.is_empty() || !self.new_dict.datasets.is_empty() {
            let dict = std::mem::take(&mut self.new_dict);
            let count = (dict.pools.len() + dict.datasets.len()) as u32;
            let json = serde_json::to_vec(&dict)?;
            self.write_block(KIND_DICTIONARY, count, &json)?;
        }
        if self.pending > 0 {
            let raw = std::mem::take(&mut self.buf);
            let res = self.write_block(KIND_RECORDS, self.pending as u32, &raw);
            self.buf = raw;
            self.buf.clear();
            self.pending = 0;
            res?;
        }
        Ok(())
    }

    fn write_block(&mut self, kind: u8, count: u32, raw: &[u8]) -> io::Result<()> {
        if raw.len() > MAX_RAW_LEN as usize {
            return Err(invalid(format!(
                "block of {} bytes (at most {MAX_RAW_LEN})",
                raw.len()
            )));
        }
        let comp = self.cctx.compress(raw)?;
        let mut head = [0u8; BLOCK_HEADER_SIZE];
        head[0] = kind;
        head[4..8].copy_from_slice(&count.to_le_bytes());
        head[8..12].copy_from_slice(&(raw.len() as u32).to_le_bytes());
        head[12..16].copy_from_slice(&(comp.len() as u32).to_le_bytes());
        self.w.write_all(&head)?;
        self.w.write_all(&comp)
    }
}
