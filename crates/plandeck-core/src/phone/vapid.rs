//! VAPID (RFC 8292): this Plandeck's own push key, so a push service accepts messages only from the
//! server a phone subscribed with. An ECDSA P-256 key made once (ring), kept in
//! `<data>/phone/vapid.json` (0600); each message carries a JWT (ES256) naming the push
//! service's origin and expiring within hours, signed by it.

use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde::{Deserialize, Serialize};

use super::sign::{b64, unb64};
use super::PhoneError;
use crate::config::Roots;

/// How long a VAPID token is good for (RFC 8292 allows at most 24 hours).
pub const TOKEN_VALID: time::Duration = time::Duration::hours(12);
/// Who sends (the JWT's `sub`): a contact address is asked for by RFC 8292; none of the person's
/// own is given to the push service.
pub const SUBJECT: &str = "mailto:plandeck@users.invalid";

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VapidFile {
    /// The private key, PKCS#8 (base64url).
    pkcs8: String,
}

/// This Plandeck's VAPID key.
pub struct Vapid {
    key: EcdsaKeyPair,
}

impl std::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vapid")
            .field("public", &self.public_b64())
            .finish_non_exhaustive()
    }
}

fn bad(message: &str) -> PhoneError {
    PhoneError::BadInput {
        message: message.to_owned(),
    }
}

impl Vapid {
    /// The store's key, made (and kept) the first time.
    pub fn load_or_make(roots: &Roots) -> Result<Vapid, PhoneError> {
        let _lock = super::lock(roots)?;
        let file: Option<VapidFile> = super::read(roots, "vapid.json")?;
        let rng = SystemRandom::new();
        let pkcs8 = match file {
            Some(f) => unb64(&f.pkcs8)?,
            None => {
                let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                    .map_err(|_| bad("cannot make the push key"))?;
                let bytes = doc.as_ref().to_vec();
                super::write(roots, "vapid.json", &VapidFile { pkcs8: b64(&bytes) })?;
                bytes
            }
        };
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8, &rng)
            .map_err(|_| bad("the push key in vapid.json is not an ECDSA P-256 key"))?;
        Ok(Vapid { key })
    }

    /// The public key as the page's `applicationServerKey` and the `k=` of each message: the
    /// uncompressed point, base64url.
    pub fn public_b64(&self) -> String {
        b64(self.key.public_key().as_ref())
    }

    /// The `Authorization` header for a message to `endpoint_origin` (`https://host[:port]`),
    /// its token expiring at `expires` (unix seconds).
    pub fn authorization(&self, endpoint_origin: &str, expires: i64) -> Result<String, PhoneError> {
        let header = b64(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({"aud": endpoint_origin, "exp": expires, "sub": SUBJECT});
        let claims = b64(claims.to_string().as_bytes());
        let signing_input = format!("{header}.{claims}");
        let sig = self
            .key
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .map_err(|_| bad("cannot sign the push token"))?;
        Ok(format!(
            "vapid t={signing_input}.{}, k={}",
            b64(sig.as_ref()),
            self.public_b64()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};

    #[test]
    fn the_key_is_kept_and_each_token_verifies_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let v = Vapid::load_or_make(&roots).unwrap();
        let again = Vapid::load_or_make(&roots).unwrap();
        assert_eq!(v.public_b64(), again.public_b64(), "made once, then kept");
        let auth = v
            .authorization("https://push.example.net", 1_900_000_000)
            .unwrap();
        let (t, k) = auth
            .strip_prefix("vapid t=")
            .and_then(|r| r.split_once(", k="))
            .unwrap();
        assert_eq!(k, v.public_b64());
        let (input, sig) = t.rsplit_once('.').unwrap();
        let key = unb64(k).unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &key)
            .verify(input.as_bytes(), &unb64(sig).unwrap())
            .expect("an ES256 signature by the VAPID key");
        let claims: serde_json::Value =
            serde_json::from_slice(&unb64(input.split('.').nth(1).unwrap()).unwrap()).unwrap();
        assert_eq!(claims["aud"], "https://push.example.net");
        assert_eq!(claims["exp"], 1_900_000_000);
        assert!(claims["sub"].as_str().unwrap().starts_with("mailto:"));
        // The private key file is the owner's only.
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(super::super::dir(&roots).join("vapid.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
    }
}
