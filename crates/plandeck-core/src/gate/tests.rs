//! Property tests of the hook's stdin parser: whatever an agent (or anything else) writes to
//! `plandeck hook claude|gemini`, the parser answers without a panic, and huge input is refused
//! unread.

use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn any_bytes_parse_or_explain(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Err(msg) = HookInput::parse(&bytes, "Claude Code") {
            prop_assert!(!msg.is_empty());
        }
    }

    #[test]
    fn json_shaped_input_parses_or_explains(
        session in ".{0,20}",
        tool in prop_oneof![Just("ExitPlanMode".to_owned()), ".{0,12}"],
        plan in any::<String>(),
        cut in 0usize..200,
    ) {
        let full = serde_json::json!({
            "session_id": session, "tool_name": tool, "cwd": "/w",
            "tool_input": {"plan": plan}
        })
        .to_string();
        let input = HookInput::parse(full.as_bytes(), "Gemini CLI").unwrap();
        prop_assert_eq!(input.session_id, session);
        // A torn or truncated write is a message, not a panic.
        let cut = cut.min(full.len());
        let _ = HookInput::parse(&full.as_bytes()[..cut], "Gemini CLI");
    }
}

#[test]
fn huge_input_is_refused_without_parsing() {
    let mut huge = b"{\"session_id\":\"".to_vec();
    huge.resize(MAX_HOOK_INPUT + 1, b'a');
    let err = HookInput::parse(&huge, "Claude Code").unwrap_err();
    assert!(err.contains("larger than 16 MiB"), "{err}");
    assert!(HookInput::parse(b" \n\t", "Claude Code")
        .unwrap_err()
        .contains("empty"));
}
