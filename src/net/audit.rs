//! `.codesmith/audit.log`: one JSON line per hop fetch_url decided about — the requests it sent
//! and the ones it refused — so a person can see afterwards what the agent reached for.
//!
//! Lines are appended with a single `write` on an `O_APPEND` descriptor, so parallel calls
//! interleave whole lines. URLs are scrubbed first: a token in a query string does not belong
//! in a log file.

use std::io::Write;
use std::net::IpAddr;

use serde_json::{json, Value};

use crate::notice::{NetNotice, Notice};
use crate::session::context::Context;

/// One audit record.
#[derive(Debug, Default)]
pub struct Entry<'a> {
    pub url: &'a str,
    pub host: &'a str,
    pub address: Option<IpAddr>,
    /// allow | approved | trusted-cidr | deny
    pub decision: &'a str,
    pub status: Option<u16>,
    /// For refusals and failures: the error code.
    pub error: Option<&'a str>,
    pub bytes: Option<usize>,
    /// The `trusted_cidrs` range that exempted the address, if one did.
    pub trusted_cidr: Option<String>,
}

/// Appends `entry`. Failing to log is not allowed to fail the call, but it is not silent either:
/// the caller gets a notice to pass on.
pub fn record(ctx: &Context, entry: &Entry) -> Option<Notice> {
    let line = json!({
        "time": now_rfc3339(),
        "session": ctx.state.session_name(),
        "tool": ctx.tool.name(),
        "url": crate::net::scrub::scrub(entry.url),
        "host": entry.host,
        "address": entry.address.map(|a| a.to_string()),
        "decision": entry.decision,
        "status": entry.status,
        "error": entry.error,
        "bytes": entry.bytes,
        "trusted_cidr": entry.trusted_cidr,
    });
    let mut text = line.to_string();
    text.push('\n');
    let result = ctx.state.ensure_dir().and_then(|()| {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(ctx.state.dir().join("audit.log"))?;
        file.write_all(text.as_bytes())
    });
    result.err().map(|err| {
        NetNotice::AuditNotWritten {
            error: err.to_string(),
        }
        .into()
    })
}

/// The current UTC time as `2026-01-31T12:34:56.789Z`.
fn now_rfc3339() -> Value {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    Value::String(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        now.subsec_millis()
    ))
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_421), (2025, 11, 29));
    }
}
