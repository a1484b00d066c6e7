//! Timestamps: `time::OffsetDateTime` in memory, RFC 3339 UTC in files, `--json` and IPC. A field
//! holding one is serialized with `#[serde(with = "time::serde::rfc3339")]` (the same text these
//! helpers give) and crosses to TypeScript as a string (`#[ts(type = "string")]`).

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Now, in UTC.
pub fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// Now, in UTC, to the second (the precision of the decision log and of versions seen).
pub fn now_seconds() -> OffsetDateTime {
    let t = now();
    t.replace_nanosecond(0).unwrap_or(t)
}

/// `t` as RFC 3339 (`2026-11-23T10:00:00Z`; fractional seconds only when `t` has them).
pub fn format(t: OffsetDateTime) -> String {
    t.format(&Rfc3339)
        .unwrap_or_else(|_| t.unix_timestamp().to_string())
}

/// An RFC 3339 timestamp, or `None` when `s` is not one.
pub fn parse(s: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(s, &Rfc3339).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_is_rfc3339_utc_and_parses_back() {
        let t = now_seconds();
        let s = format(t);
        assert!(s.ends_with('Z') && s.len() == 20, "{s}");
        assert_eq!(parse(&s), Some(t));
        let precise = parse("2026-11-23T10:00:00.123456789Z").unwrap();
        assert_eq!(format(precise), "2026-11-23T10:00:00.123456789Z");
        assert_eq!(parse("yesterday"), None);
    }

    #[test]
    fn serde_writes_the_same_text() {
        #[derive(serde::Serialize, serde::Deserialize)]
        struct At {
            #[serde(with = "time::serde::rfc3339")]
            at: OffsetDateTime,
        }
        for text in ["2026-11-23T10:00:00Z", "2026-11-23T10:00:00.5Z"] {
            let json = format!("{{\"at\":\"{text}\"}}");
            let at: At = serde_json::from_str(&json).unwrap();
            assert_eq!(serde_json::to_string(&at).unwrap(), json);
            assert_eq!(format(at.at), text);
        }
    }
}
