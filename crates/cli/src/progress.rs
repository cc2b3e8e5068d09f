//! A progress bar that appears only on a terminal and only for work that
//! lasts more than a second.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Progress over a known or unknown total of bytes.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    total: Option<u64>,
    bytes: bool,
    message: String,
    enabled: bool,
}

impl Progress {
    /// A bar for `message`, over `total` units of input bytes if known.
    pub(crate) fn new(message: &str, total: Option<u64>) -> Self {
        Progress {
            bar: None,
            start: Instant::now(),
            total,
            bytes: true,
            message: message.to_string(),
            enabled: std::io::stderr().is_terminal(),
        }
    }

    /// A spinner counting items (requests), total unknown.
    pub(crate) fn count(message: &str) -> Self {
        Progress {
            bytes: false,
            ..Progress::new(message, None)
        }
    }

    /// Report the position; draws once the work has run for a second.
    pub(crate) fn set(&mut self, pos: u64) {
        if !self.enabled {
            return;
        }
        if self.bar.is_none() && self.start.elapsed() >= Duration::from_secs(1) {
            let bar = match self.total {
                Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr())
                    .with_style(
                        ProgressStyle::with_template(
                            "{msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} ({eta})",
                        )
                        .unwrap_or_else(|_| ProgressStyle::default_bar())
                        .progress_chars("=> "),
                    ),
                None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
                    .with_style(
                        ProgressStyle::with_template(if self.bytes {
                            "{spinner} {msg} {binary_bytes}"
                        } else {
                            "{spinner} {msg} {human_pos}"
                        })
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    ),
            };
            bar.set_message(self.message.clone());
            self.bar = Some(bar);
        }
        if let Some(b) = &self.bar {
            b.set_position(pos);
        }
    }

    /// Remove the bar.
    pub(crate) fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}
