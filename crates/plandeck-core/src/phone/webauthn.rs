//! Passkeys (WebAuthn) as a phone's device key, where the phone's browser offers them: made at
//! pairing with user verification (`navigator.credentials.create`), and asked for each decision
//! (`navigator.credentials.get`, its challenge the SHA-256 of the canonical decision). The
//! WebCrypto key stays (it signs the page's reads, and is the device key where no passkey is
//! offered).
//!
//! Checked here, every input hostile:
//! - at pairing: `clientDataJSON` (type `webauthn.create`, the challenge, the page's own origin,
//!   not cross-origin), the attestation object (CBOR: `fmt`, `attStmt`, `authData`; the
//!   attestation statement is not relied on, "none" is what is asked: the one-time pairing secret
//!   is what makes the device known), and its authenticator data (the rp id's hash, flags UP and UV
//!   and AT, the credential id the page named, an ES256 P-256 COSE key);
//! - at each decision: `clientDataJSON` (type `webauthn.get`, the challenge, the origin), the
//!   authenticator data (the rp id's hash, UP and UV, no attested data, the signature counter
//!   increasing when either side is not 0), and the ES256 signature over
//!   `authenticatorData ‖ SHA-256(clientDataJSON)`.
//!
//! CBOR is read by a small reader of our own ([`cbor`]): definite lengths only, every length
//! checked against the bytes left before anything is kept, at most 8 levels deep and 512 items,
//! so no input makes it allocate more than it was sent or recurse without end.

use ring::digest::{digest, SHA256};
use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_ASN1};
use serde::{Deserialize, Serialize};

use super::sign::{b64, unb64};
use super::PhoneError;

/// The largest `clientDataJSON` taken.
const MAX_CLIENT_DATA: usize = 4 * 1024;
/// The largest attestation object or authenticator data taken.
const MAX_ATTESTATION: usize = 16 * 1024;
/// The longest credential id (WebAuthn: at most 1023 bytes).
const MAX_CREDENTIAL_ID: usize = 1023;

const FLAG_UP: u8 = 0x01;
const FLAG_UV: u8 = 0x04;
const FLAG_AT: u8 = 0x40;
const FLAG_ED: u8 = 0x80;

/// A passkey kept for a device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Passkey {
    /// The credential id, base64url.
    pub credential_id: String,
    /// Its public key: the uncompressed P-256 point (65 bytes), base64url.
    pub public_key: String,
    /// The relying party id it was made for (the page's host).
    pub rp_id: String,
    /// The last signature counter seen.
    pub sign_count: u32,
}

/// What the page sends of `navigator.credentials.create` at pairing (each base64url).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Registration {
    pub credential_id: String,
    pub client_data_json: String,
    pub attestation_object: String,
}

/// What the page sends of `navigator.credentials.get` with a decision (each base64url).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Assertion {
    pub credential_id: String,
    pub client_data_json: String,
    pub authenticator_data: String,
    /// ES256, ASN.1 DER (what WebAuthn gives).
    pub signature: String,
}

/// Where the page is served: the relying party id (its host) and its origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    pub rp_id: String,
    pub origin: String,
}

impl Expect {
    /// The page's host and origin from its config (`https://HOST[:PORT]`, the port left out
    /// when 443, as a browser writes an origin).
    pub fn for_config(config: &super::server::PhoneConfig) -> Result<Self, PhoneError> {
        let addr = super::server::parse_listen(&config.listen)?;
        let host = match &config.name {
            Some(n) => n.to_ascii_lowercase(),
            None if addr.is_ipv6() => format!("[{}]", addr.ip()),
            None => addr.ip().to_string(),
        };
        let origin = if addr.port() == 443 {
            format!("https://{host}")
        } else {
            format!("https://{host}:{}", addr.port())
        };
        Ok(Self {
            rp_id: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
            origin,
        })
    }
}

fn bad(reason: impl Into<String>) -> PhoneError {
    PhoneError::BadPasskey {
        reason: reason.into(),
    }
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    let d = digest(&SHA256, bytes);
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}

fn decode_field(name: &str, text: &str, max: usize) -> Result<Vec<u8>, PhoneError> {
    // base64 of `max` bytes is at most 4/3 as long: refuse before decoding anything longer.
    if text.len() > max / 3 * 4 + 8 {
        return Err(bad(format!("{name} is too long")));
    }
    let bytes = unb64(text).map_err(|_| bad(format!("{name} is not base64url")))?;
    if bytes.is_empty() || bytes.len() > max {
        return Err(bad(format!("{name} is empty or too long")));
    }
    Ok(bytes)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClientData {
    #[serde(rename = "type")]
    kind: String,
    challenge: String,
    origin: String,
    #[serde(default)]
    cross_origin: Option<bool>,
    #[serde(default)]
    top_origin: Option<String>,
}

/// Checks `clientDataJSON`: its type, its challenge (the bytes expected), its origin (the page's
/// own), and that it was not made in a frame of another site.
fn check_client_data(
    raw: &[u8],
    kind: &str,
    expect: &Expect,
    challenge: &[u8],
) -> Result<(), PhoneError> {
    let cd: ClientData = serde_json::from_slice(raw)
        .map_err(|e| bad(format!("its client data is not the browser's JSON: {e}")))?;
    if cd.kind != kind {
        return Err(bad(format!(
            "its client data is of type \"{}\", not {kind}",
            crate::visible::shown(&cd.kind)
        )));
    }
    if cd.origin != expect.origin {
        return Err(bad(format!(
            "it was made on the page at {}, not this page ({})",
            crate::visible::shown(&cd.origin),
            expect.origin
        )));
    }
    if cd.cross_origin == Some(true) || cd.top_origin.is_some() {
        return Err(bad("it was made in a frame inside another site"));
    }
    let got = unb64(&cd.challenge).map_err(|_| bad("its challenge is not base64url"))?;
    if got != challenge {
        return Err(bad(
            "it signed another challenge (another decision, another request or plan, or another pairing)",
        ));
    }
    Ok(())
}

/// The parts of authenticator data every use has: the rp id hash checked, the flags, the counter.
fn check_auth_head(auth: &[u8], rp_id: &str) -> Result<(u8, u32), PhoneError> {
    if auth.len() < 37 {
        return Err(bad("its authenticator data is cut short"));
    }
    if auth[..32] != sha256(rp_id.as_bytes()) {
        return Err(bad(format!(
            "it was made for another site than {}",
            crate::visible::shown(rp_id)
        )));
    }
    let flags = auth[32];
    if flags & FLAG_UP == 0 {
        return Err(bad("the authenticator says nobody was present"));
    }
    if flags & FLAG_UV == 0 {
        return Err(PhoneError::UserNotVerified);
    }
    let count = u32::from_be_bytes([auth[33], auth[34], auth[35], auth[36]]);
    Ok((flags, count))
}

type Entries<'a> = [(cbor::Value<'a>, cbor::Value<'a>)];

/// The value of `label` in a COSE key (each label at most once).
fn cose_field<'v, 'a>(
    entries: &'v Entries<'a>,
    label: i128,
) -> Result<Option<&'v cbor::Value<'a>>, PhoneError> {
    let mut found = None;
    for (k, v) in entries {
        if *k == cbor::Value::Int(label) {
            if found.is_some() {
                return Err(bad("its COSE key names a field twice"));
            }
            found = Some(v);
        }
    }
    Ok(found)
}

fn cose_int(entries: &Entries<'_>, label: i128) -> Result<Option<i128>, PhoneError> {
    Ok(match cose_field(entries, label)? {
        Some(cbor::Value::Int(i)) => Some(*i),
        _ => None,
    })
}

fn cose_coordinate<'v>(entries: &'v Entries<'_>, label: i128) -> Result<&'v [u8], PhoneError> {
    match cose_field(entries, label)? {
        Some(cbor::Value::Bytes(b)) if b.len() == 32 => Ok(b),
        _ => Err(bad("its public key's coordinates are not 32 bytes each")),
    }
}

/// The COSE key of an ES256 P-256 credential, as the uncompressed point.
fn cose_p256(key: &cbor::Value<'_>) -> Result<Vec<u8>, PhoneError> {
    let cbor::Value::Map(entries) = key else {
        return Err(bad("its public key is not a COSE key"));
    };
    if cose_int(entries, 1)? != Some(2)
        || cose_int(entries, 3)? != Some(-7)
        || cose_int(entries, -1)? != Some(1)
    {
        return Err(bad(
            "its public key is not ES256 on P-256 (the only kind taken)",
        ));
    }
    let mut raw = vec![4u8];
    raw.extend_from_slice(cose_coordinate(entries, -2)?);
    raw.extend_from_slice(cose_coordinate(entries, -3)?);
    on_the_curve(&raw)?;
    Ok(raw)
}

/// Refuses a public key that is no point of P-256 (kept, it would verify nothing, and each
/// decision of the device would be refused as a wrong signature): ring checks the point when it
/// agrees a key with it.
fn on_the_curve(raw: &[u8]) -> Result<(), PhoneError> {
    use ring::agreement::{agree_ephemeral, EphemeralPrivateKey, UnparsedPublicKey, ECDH_P256};
    let rng = ring::rand::SystemRandom::new();
    let mine = EphemeralPrivateKey::generate(&ECDH_P256, &rng)
        .map_err(|_| bad("no random bytes to check its public key with"))?;
    agree_ephemeral(mine, &UnparsedPublicKey::new(&ECDH_P256, raw), |_| ())
        .map_err(|_| bad("its public key is not a point of P-256"))
}

/// Checks a passkey made at pairing against the page's host and origin and the pairing's
/// challenge; returns the passkey to keep.
pub fn verify_registration(
    reg: &Registration,
    expect: &Expect,
    challenge: &[u8],
) -> Result<Passkey, PhoneError> {
    let id = decode_field("its credential id", &reg.credential_id, MAX_CREDENTIAL_ID)?;
    let client = decode_field("its client data", &reg.client_data_json, MAX_CLIENT_DATA)?;
    let att = decode_field(
        "its attestation object",
        &reg.attestation_object,
        MAX_ATTESTATION,
    )?;
    check_client_data(&client, "webauthn.create", expect, challenge)?;
    let object = cbor::decode(&att).map_err(|e| bad(format!("its attestation object: {e}")))?;
    let cbor::Value::Map(fields) = &object else {
        return Err(bad("its attestation object is not a CBOR map"));
    };
    let mut auth = None;
    let mut fmt = None;
    for (k, v) in fields {
        match (k, v) {
            (cbor::Value::Text("authData"), cbor::Value::Bytes(b)) if auth.is_none() => {
                auth = Some(*b)
            }
            (cbor::Value::Text("fmt"), cbor::Value::Text(t)) if fmt.is_none() => fmt = Some(*t),
            (cbor::Value::Text("authData" | "fmt"), _) => {
                return Err(bad(
                    "its attestation object names authData or fmt twice, or with the wrong type",
                ))
            }
            _ => {}
        }
    }
    if fmt.is_none() {
        return Err(bad("its attestation object has no fmt"));
    }
    let Some(auth) = auth else {
        return Err(bad("its attestation object has no authenticator data"));
    };
    let (flags, count) = check_auth_head(auth, &expect.rp_id)?;
    if flags & FLAG_AT == 0 {
        return Err(bad("its authenticator data holds no credential"));
    }
    let rest = &auth[37..];
    if rest.len() < 18 {
        return Err(bad("its credential data is cut short"));
    }
    let len = usize::from(u16::from_be_bytes([rest[16], rest[17]]));
    let rest = &rest[18..];
    if len == 0 || len > MAX_CREDENTIAL_ID || rest.len() < len {
        return Err(bad("its credential id is cut short or too long"));
    }
    if rest[..len] != id[..] {
        return Err(bad(
            "the credential id sent is not the one the authenticator made",
        ));
    }
    let (key, used) = cbor::decode_prefix(&rest[len..])
        .map_err(|e| bad(format!("its public key is not CBOR: {e}")))?;
    let raw = cose_p256(&key)?;
    let after = &rest[len + used..];
    if flags & FLAG_ED != 0 {
        match cbor::decode(after) {
            Ok(cbor::Value::Map(_)) => {}
            _ => return Err(bad("its extensions are not one CBOR map")),
        }
    } else if !after.is_empty() {
        return Err(bad("its authenticator data has bytes after the key"));
    }
    Ok(Passkey {
        credential_id: b64(&id),
        public_key: b64(&raw),
        rp_id: expect.rp_id.clone(),
        sign_count: count,
    })
}

/// Checks an assertion of `passkey` for `challenge` on the page `expect`; returns the counter
/// to keep.
pub fn verify_assertion(
    a: &Assertion,
    passkey: &Passkey,
    expect: &Expect,
    challenge: &[u8],
) -> Result<u32, PhoneError> {
    if passkey.rp_id != expect.rp_id {
        return Err(bad(format!(
            "this phone's passkey is for {}, and the page is now at {}: pair it again",
            passkey.rp_id, expect.rp_id
        )));
    }
    let id = decode_field("its credential id", &a.credential_id, MAX_CREDENTIAL_ID)?;
    let kept = unb64(&passkey.credential_id).map_err(|_| bad("the kept credential id"))?;
    if id != kept {
        return Err(bad("it is another passkey than this device's"));
    }
    let client = decode_field("its client data", &a.client_data_json, MAX_CLIENT_DATA)?;
    let auth = decode_field(
        "its authenticator data",
        &a.authenticator_data,
        MAX_ATTESTATION,
    )?;
    let sig = decode_field("its signature", &a.signature, 128)?;
    check_client_data(&client, "webauthn.get", expect, challenge)?;
    let (flags, count) = check_auth_head(&auth, &passkey.rp_id)?;
    if flags & FLAG_AT != 0 {
        return Err(bad("an assertion holds no new credential"));
    }
    if flags & FLAG_ED != 0 {
        match cbor::decode(&auth[37..]) {
            Ok(cbor::Value::Map(_)) => {}
            _ => return Err(bad("its extensions are not one CBOR map")),
        }
    } else if auth.len() != 37 {
        return Err(bad("its authenticator data has bytes after the counter"));
    }
    let key = unb64(&passkey.public_key).map_err(|_| bad("the kept public key"))?;
    let mut signed = auth.clone();
    signed.extend_from_slice(&sha256(&client));
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, &key)
        .verify(&signed, &sig)
        .map_err(|_| bad("its signature is not this device's passkey's"))?;
    if (count != 0 || passkey.sign_count != 0) && count <= passkey.sign_count {
        return Err(bad(format!(
            "its counter ({count}) did not go past the last one seen ({}): a copied passkey or a replay",
            passkey.sign_count
        )));
    }
    Ok(count)
}

/// A bounded CBOR reader: what attestation objects and COSE keys need.
pub(crate) mod cbor {
    /// A CBOR item (tags and floats are refused: nothing here uses them).
    #[derive(Debug, Clone, PartialEq)]
    pub enum Value<'a> {
        Int(i128),
        Bytes(&'a [u8]),
        Text(&'a str),
        Array(Vec<Value<'a>>),
        Map(Vec<(Value<'a>, Value<'a>)>),
        Bool(bool),
        Null,
    }

    const MAX_DEPTH: u32 = 8;
    const MAX_ITEMS: usize = 512;

    struct Reader<'a> {
        input: &'a [u8],
        pos: usize,
        items: usize,
    }

    impl<'a> Reader<'a> {
        fn byte(&mut self) -> Result<u8, String> {
            let b = *self.input.get(self.pos).ok_or("cut short")?;
            self.pos += 1;
            Ok(b)
        }
        fn take(&mut self, n: u64) -> Result<&'a [u8], String> {
            let left = (self.input.len() - self.pos) as u64;
            if n > left {
                return Err(format!("a length of {n} with {left} bytes left"));
            }
            let n = n as usize;
            let out = &self.input[self.pos..self.pos + n];
            self.pos += n;
            Ok(out)
        }
        fn argument(&mut self, info: u8) -> Result<u64, String> {
            Ok(match info {
                0..=23 => u64::from(info),
                24 => u64::from(self.byte()?),
                25 => u64::from(u16::from_be_bytes(
                    self.take(2)?.try_into().unwrap_or([0; 2]),
                )),
                26 => u64::from(u32::from_be_bytes(
                    self.take(4)?.try_into().unwrap_or([0; 4]),
                )),
                27 => u64::from_be_bytes(self.take(8)?.try_into().unwrap_or([0; 8])),
                _ => return Err("an indefinite or reserved length".to_owned()),
            })
        }
        /// A count of items to come: each takes at least one byte, and all of them together
        /// stay within the budget.
        fn count(&mut self, n: u64, per_item: u64) -> Result<usize, String> {
            let left = (self.input.len() - self.pos) as u64;
            if n.saturating_mul(per_item) > left {
                return Err(format!("{n} items with {left} bytes left"));
            }
            let n = n as usize;
            if self.items + n > MAX_ITEMS {
                return Err("too many items".to_owned());
            }
            self.items += n;
            Ok(n)
        }
        fn value(&mut self, depth: u32) -> Result<Value<'a>, String> {
            if depth > MAX_DEPTH {
                return Err("nested too deep".to_owned());
            }
            let first = self.byte()?;
            let (major, info) = (first >> 5, first & 0x1f);
            if major == 7 {
                return match info {
                    20 => Ok(Value::Bool(false)),
                    21 => Ok(Value::Bool(true)),
                    22 | 23 => Ok(Value::Null),
                    _ => Err("a float or simple value".to_owned()),
                };
            }
            let arg = self.argument(info)?;
            Ok(match major {
                0 => Value::Int(i128::from(arg)),
                1 => Value::Int(-1 - i128::from(arg)),
                2 => Value::Bytes(self.take(arg)?),
                3 => {
                    Value::Text(std::str::from_utf8(self.take(arg)?).map_err(|_| "text not UTF-8")?)
                }
                4 => {
                    let n = self.count(arg, 1)?;
                    let mut items = Vec::with_capacity(n);
                    for _ in 0..n {
                        items.push(self.value(depth + 1)?);
                    }
                    Value::Array(items)
                }
                5 => {
                    let n = self.count(arg, 2)?;
                    let mut items = Vec::with_capacity(n);
                    for _ in 0..n {
                        let k = self.value(depth + 1)?;
                        let v = self.value(depth + 1)?;
                        items.push((k, v));
                    }
                    Value::Map(items)
                }
                _ => return Err("a tag".to_owned()),
            })
        }
    }

    /// One item that is the whole of `input`.
    pub fn decode(input: &[u8]) -> Result<Value<'_>, String> {
        let (v, used) = decode_prefix(input)?;
        if used != input.len() {
            return Err("bytes after the item".to_owned());
        }
        Ok(v)
    }

    /// One item at the start of `input`, and how many bytes it took.
    pub fn decode_prefix(input: &[u8]) -> Result<(Value<'_>, usize), String> {
        let mut r = Reader {
            input,
            pos: 0,
            items: 0,
        };
        let v = r.value(0)?;
        Ok((v, r.pos))
    }
}

#[cfg(test)]
#[path = "webauthn_tests.rs"]
mod tests;
