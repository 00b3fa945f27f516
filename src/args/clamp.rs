//! Caps on numeric arguments, in one place: each tool declares its caps on its `ToolSpec`, and
//! every clamp (the tool's own, the repair of a value no `u64` holds, a foreign call's
//! translation) reads them from there.
//!
//! A value outside a cap is not an error (the call still does the useful thing) but never
//! silent: the notice names the value asked for and the one used.

use serde_json::Value;

use crate::notice::{ArgsNotice, Notice};

/// A numeric argument a tool holds inside `min..=max` instead of refusing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    pub field: &'static str,
    pub min: u64,
    pub max: u64,
    /// Whether values no `u64` can hold (negative, beyond 64 bits) are clamped too, before the
    /// arguments are parsed; otherwise they are refused as `invalid_arguments`.
    pub clamps_unrepresentable: bool,
}

impl Cap {
    pub const fn new(field: &'static str, min: u64, max: u64) -> Cap {
        Cap {
            field,
            min,
            max,
            clamps_unrepresentable: false,
        }
    }

    /// The same cap, also holding values no `u64` can (see [`clamp_unrepresentable`]).
    pub const fn also_unrepresentable(self) -> Cap {
        Cap {
            clamps_unrepresentable: true,
            ..self
        }
    }

    /// Holds `value` inside `min..=max`: `{field}={value} is outside {min}..={max}; used {used}.`
    pub fn hold(&self, value: u64, notices: &mut Vec<Notice>) -> u64 {
        let used = value.clamp(self.min, self.max);
        if used != value {
            notices.push(outside(self, value.to_string(), used));
        }
        used
    }

    /// Holds `value` to at most `max`, saying what the tool does instead: `{field}={value} is
    /// over the cap; {doing} at most {max} {unit}.`
    pub fn cut(
        &self,
        value: u64,
        (doing, unit): (&'static str, &'static str),
        notices: &mut Vec<Notice>,
    ) -> u64 {
        if value > self.max {
            notices.push(
                ArgsNotice::OverCap {
                    field: self.field,
                    value,
                    max: self.max,
                    doing,
                    unit,
                }
                .into(),
            );
            self.max
        } else {
            value
        }
    }
}

/// The cap of `field` among `caps`.
pub fn cap_of<'a>(caps: &'a [Cap], field: &str) -> Option<&'a Cap> {
    caps.iter().find(|cap| cap.field == field)
}

fn outside(cap: &Cap, shown: String, used: u64) -> Notice {
    ArgsNotice::Outside {
        field: cap.field,
        shown,
        min: cap.min,
        max: cap.max,
        used,
    }
    .into()
}

/// Clamps the fields of `caps` marked [`Cap::also_unrepresentable`] whose value is below their
/// minimum or beyond 64 bits, and returns a notice for each (`max_results=-5 is outside
/// 1..=1000; used 1.`). Runs on every call, so it looks at nothing but those few fields; the
/// tool holds the representable values itself.
pub fn clamp_unrepresentable(caps: &[Cap], args: &mut Value) -> Vec<Notice> {
    let mut notices = Vec::new();
    let Value::Object(map) = args else {
        return notices;
    };
    for cap in caps.iter().filter(|cap| cap.clamps_unrepresentable) {
        let Some(value) = map.get_mut(cap.field) else {
            continue;
        };
        let Some(number) = whole_number(value) else {
            continue;
        };
        let used = if number < i128::from(cap.min) {
            cap.min
        } else if number > i128::from(u64::MAX) {
            cap.max
        } else {
            continue;
        };
        // The value as the caller wrote it: JSON, so a string shows its quotes.
        notices.push(outside(cap, value.to_string(), used));
        *value = Value::from(used);
    }
    notices
}

/// The whole number `value` spells, if it spells one: an integer, a float without a fraction,
/// or a string holding an integer. Beyond the range of `i128` saturates.
pub(super) fn whole_number(value: &Value) -> Option<i128> {
    match value {
        Value::Number(number) => {
            if let Some(n) = number.as_i64() {
                Some(i128::from(n))
            } else if let Some(n) = number.as_u64() {
                Some(i128::from(n))
            } else {
                let float = number.as_f64()?;
                // Saturating on purpose: 1e40 is "too large" whatever its exact value.
                (float.is_finite() && float.fract() == 0.0).then_some(float as i128)
            }
        }
        Value::String(text) => text.trim().parse::<i128>().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notice::render_all;
    use serde_json::json;

    const CAPS: &[Cap] = &[
        Cap::new("max_results", 1, 1000).also_unrepresentable(),
        Cap::new("context", 0, 50),
    ];

    #[test]
    fn clamping_unrepresentable_values_touches_only_marked_caps() {
        let mut args = json!({"pattern": "x", "max_results": -5, "context": -1});
        let notices = clamp_unrepresentable(CAPS, &mut args);
        assert_eq!(args["max_results"], 1);
        assert_eq!(args["context"], -1);
        assert_eq!(
            render_all(&notices),
            ["max_results=-5 is outside 1..=1000; used 1."]
        );
        let mut args = json!({"max_results": 1e30});
        clamp_unrepresentable(CAPS, &mut args);
        assert_eq!(args["max_results"], 1000);
        let mut args = json!({"path": "f", "start_line": -5});
        assert!(clamp_unrepresentable(CAPS, &mut args).is_empty());
        assert_eq!(args["start_line"], -5);
    }

    #[test]
    fn hold_and_cut_say_what_they_did() {
        let mut notices = Vec::new();
        assert_eq!(CAPS[0].hold(0, &mut notices), 1);
        assert_eq!(CAPS[0].hold(7, &mut notices), 7);
        assert_eq!(CAPS[0].cut(5000, ("showing", "results"), &mut notices), 1000);
        assert_eq!(
            render_all(&notices),
            [
                "max_results=0 is outside 1..=1000; used 1.",
                "max_results=5000 is over the cap; showing at most 1000 results."
            ]
        );
    }
}
