//! What a phone signs and how it is checked: canonical bytes (one field per line, each field
//! refused when it holds a line break, so two different calls never sign the same bytes), device
//! keys in the forms a browser gives (raw point, SPKI, JWK), ECDSA P-256 verification (ring).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};
use serde::{Deserialize, Serialize};

use super::PhoneError;

/// What the phone decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    Approve,
    ApproveWithNote,
    Reject,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approve => "approve",
            Verdict::ApproveWithNote => "approveWithNote",
            Verdict::Reject => "reject",
        }
    }
}

/// The SPKI header of an uncompressed P-256 public key (what precedes the 65-byte point).
const SPKI_P256_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

#[cfg(test)]
pub(crate) const SPKI_P256_PREFIX_FOR_TESTS: [u8; 26] = SPKI_P256_PREFIX;

pub(crate) fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

pub(crate) fn unb64(text: &str) -> Result<Vec<u8>, PhoneError> {
    URL_SAFE_NO_PAD
        .decode(
            text.trim_end_matches('=')
                .replace('+', "-")
                .replace('/', "_"),
        )
        .map_err(|e| PhoneError::BadInput {
            message: format!("not base64: {e}"),
        })
}

/// `n` random bytes from the system, base64url.
pub(crate) fn random_token(n: usize) -> Result<String, PhoneError> {
    let mut bytes = vec![0u8; n];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| PhoneError::BadInput {
            message: "the system gave no random bytes".to_owned(),
        })?;
    Ok(b64(&bytes))
}

/// The device key as the uncompressed point: from base64(url) of the raw point or of SPKI DER,
/// or a JWK `{kty: "EC", crv: "P-256", x, y}`.
pub fn parse_public_key(value: &serde_json::Value) -> Result<Vec<u8>, PhoneError> {
    let bad = |m: &str| PhoneError::BadKey {
        message: m.to_owned(),
    };
    let raw = match value {
        serde_json::Value::String(s) => {
            let bytes = unb64(s).map_err(|_| bad("not base64"))?;
            if bytes.len() == 91 && bytes[..26] == SPKI_P256_PREFIX {
                bytes[26..].to_vec()
            } else {
                bytes
            }
        }
        serde_json::Value::Object(o) => {
            let field = |k: &str| o.get(k).and_then(|v| v.as_str());
            if field("kty") != Some("EC") || field("crv") != Some("P-256") {
                return Err(bad("a JWK of kty EC and crv P-256 is needed"));
            }
            if o.contains_key("d") {
                return Err(bad(
                    "that JWK holds a private key; send only the public one",
                ));
            }
            let x = unb64(field("x").unwrap_or_default()).map_err(|_| bad("x is not base64"))?;
            let y = unb64(field("y").unwrap_or_default()).map_err(|_| bad("y is not base64"))?;
            if x.len() != 32 || y.len() != 32 {
                return Err(bad("x and y are 32 bytes each"));
            }
            let mut raw = vec![4u8];
            raw.extend_from_slice(&x);
            raw.extend_from_slice(&y);
            raw
        }
        _ => return Err(bad("expected a base64 key or a JWK")),
    };
    if raw.len() != 65 || raw[0] != 4 {
        return Err(bad("an uncompressed point of 65 bytes is needed"));
    }
    Ok(raw)
}

/// The device's id: the first 16 hex of the SHA-256 of its key.
pub fn device_id(raw_key: &[u8]) -> String {
    crate::durable::sha256_hex(raw_key)[..16].to_owned()
}

/// Checks `signature` (base64url of `r‖s`) over `message` with the raw P-256 key.
pub(crate) fn verify_raw(
    raw_key: &[u8],
    message: &[u8],
    signature: &str,
) -> Result<(), PhoneError> {
    let sig = unb64(signature).map_err(|_| PhoneError::BadSignature)?;
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, raw_key)
        .verify(message, &sig)
        .map_err(|_| PhoneError::BadSignature)
}

/// A nonce: 16 to 64 base64url characters.
pub(crate) fn check_nonce(nonce: &str) -> Result<(), PhoneError> {
    if (16..=64).contains(&nonce.len())
        && nonce
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        Ok(())
    } else {
        Err(PhoneError::BadInput {
            message: "a nonce is 16 to 64 base64url characters".to_owned(),
        })
    }
}

fn field(name: &str, value: &str) -> Result<(), PhoneError> {
    if value.contains(['\n', '\r']) || value.len() > 256 {
        return Err(PhoneError::BadInput {
            message: format!("{name} holds a line break or is too long"),
        });
    }
    Ok(())
}

/// What a phone signs to pair: proves it holds the key it offers.
pub fn canonical_pairing(secret: &str) -> String {
    format!("plandeck-pair-v1\n{secret}")
}

/// What a phone signs to decide: `{request id, plan hash, decision, feedback hash, nonce,
/// expiry}`, one per line after a version line. The feedback goes as its SHA-256 (hex).
pub fn canonical_decision(
    request_id: &str,
    plan_hash: &str,
    decision: Verdict,
    feedback: &str,
    nonce: &str,
    expires: i64,
) -> Result<String, PhoneError> {
    field("the request id", request_id)?;
    field("the plan hash", plan_hash)?;
    field("the nonce", nonce)?;
    Ok(format!(
        "plandeck-decision-v1\n{request_id}\n{plan_hash}\n{}\n{}\n{nonce}\n{expires}",
        decision.as_str(),
        crate::durable::sha256_hex(feedback.as_bytes())
    ))
}

/// What a phone signs to read: what (`pending`, `plan`), the request id (empty for the list), the
/// nonce and the expiry.
pub fn canonical_read(
    what: &str,
    request_id: &str,
    nonce: &str,
    expires: i64,
) -> Result<String, PhoneError> {
    field("what", what)?;
    field("the request id", request_id)?;
    field("the nonce", nonce)?;
    Ok(format!(
        "plandeck-read-v1\n{what}\n{request_id}\n{nonce}\n{expires}"
    ))
}
