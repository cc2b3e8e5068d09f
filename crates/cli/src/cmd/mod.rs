//! One module per subcommand.

pub(crate) mod capture;
pub(crate) mod change;
pub(crate) mod compare;
pub(crate) mod export;
pub(crate) mod exporter;
pub(crate) mod limits;
pub(crate) mod record;
pub(crate) mod scenario;
pub(crate) mod sim;
pub(crate) mod status;
pub(crate) mod top;
pub(crate) mod trace;
pub(crate) mod tune;
pub(crate) mod whatif;
pub(crate) mod workloads;

use std::fmt;

/// A command line that parsed but asks for something impossible (exit code 2).
#[derive(Debug)]
pub(crate) struct UsageError(pub(crate) String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Output format shared by the commands that print tables (one definition,
/// in [`crate::args`]).
pub(crate) use crate::args::FormatArgs;
