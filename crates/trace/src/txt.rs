//! Plain text traces: one object id per line (libCacheSim `PLAIN_TXT_TRACE`).
//! Every request has size 1 and time 0; empty lines are skipped; the last line
//! may lack its `\n`.

use arclab_arc::Request;

use crate::error::TraceError;
use crate::lines::{LineReader, clean_field, parse_id};
use crate::source::Source;

/// Streaming txt reader.
pub(crate) struct TxtReader {
    lines: LineReader,
    id_is_num: bool,
}

impl TxtReader {
    pub(crate) fn new(src: Source, name: &str, id_is_num: bool) -> Result<Self, TraceError> {
        Ok(TxtReader {
            lines: LineReader::new(src, name)?,
            id_is_num,
        })
    }

    pub(crate) fn read_batch(
        &mut self,
        out: &mut Vec<Request>,
        max: usize,
    ) -> Result<usize, TraceError> {
        let mut appended = 0;
        while appended < max {
            let Some(line) = self.lines.next_line()? else {
                break;
            };
            let id = clean_field(line);
            if id.is_empty() {
                continue;
            }
            out.push(Request::read(0, parse_id(id, self.id_is_num), 1));
            appended += 1;
        }
        Ok(appended)
    }
}
