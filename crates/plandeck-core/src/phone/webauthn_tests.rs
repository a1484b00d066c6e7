//! The passkey verifier against an authenticator of our own (ring's P-256 key, CBOR written by
//! hand), then every hostile input: each refused with its reason, never a panic.

use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};

use super::*;

/// CBOR writing, for the tests' authenticator.
fn head(major: u8, n: u64) -> Vec<u8> {
    let m = major << 5;
    match n {
        0..=23 => vec![m | n as u8],
        24..=0xff => vec![m | 24, n as u8],
        0x100..=0xffff => {
            let mut v = vec![m | 25];
            v.extend_from_slice(&(n as u16).to_be_bytes());
            v
        }
        _ => {
            let mut v = vec![m | 26];
            v.extend_from_slice(&(n as u32).to_be_bytes());
            v
        }
    }
}
fn int(i: i64) -> Vec<u8> {
    if i >= 0 {
        head(0, i as u64)
    } else {
        head(1, (-1 - i) as u64)
    }
}
fn bytes(b: &[u8]) -> Vec<u8> {
    let mut v = head(2, b.len() as u64);
    v.extend_from_slice(b);
    v
}
fn text(t: &str) -> Vec<u8> {
    let mut v = head(3, t.len() as u64);
    v.extend_from_slice(t.as_bytes());
    v
}
fn map(entries: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut v = head(5, entries.len() as u64);
    for (k, val) in entries {
        v.extend_from_slice(k);
        v.extend_from_slice(val);
    }
    v
}

const ORIGIN: &str = "https://phone.example.ts.net:8443";
const RP: &str = "phone.example.ts.net";

fn expect() -> Expect {
    Expect {
        rp_id: RP.to_owned(),
        origin: ORIGIN.to_owned(),
    }
}

/// An authenticator with one credential.
struct Authenticator {
    key: EcdsaKeyPair,
    id: Vec<u8>,
    count: u32,
}

impl Authenticator {
    fn new() -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).unwrap();
        Self {
            key: EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng)
                .unwrap(),
            id: vec![7u8; 20],
            count: 0,
        }
    }
    fn cose(&self) -> Vec<u8> {
        let p = self.key.public_key().as_ref();
        map(&[
            (int(1), int(2)),
            (int(3), int(-7)),
            (int(-1), int(1)),
            (int(-2), bytes(&p[1..33])),
            (int(-3), bytes(&p[33..65])),
        ])
    }
    fn client_data(kind: &str, challenge: &[u8], origin: &str) -> Vec<u8> {
        serde_json::json!({"type": kind, "challenge": b64(challenge), "origin": origin, "crossOrigin": false})
            .to_string()
            .into_bytes()
    }
    fn auth_data(&self, rp: &str, flags: u8, count: u32, attested: Option<&[u8]>) -> Vec<u8> {
        let mut a = sha256(rp.as_bytes()).to_vec();
        a.push(flags);
        a.extend_from_slice(&count.to_be_bytes());
        if let Some(cose) = attested {
            a.extend_from_slice(&[0u8; 16]);
            a.extend_from_slice(&(self.id.len() as u16).to_be_bytes());
            a.extend_from_slice(&self.id);
            a.extend_from_slice(cose);
        }
        a
    }
    fn register_raw(&self, client: Vec<u8>, auth: Vec<u8>) -> Registration {
        let att = map(&[
            (text("fmt"), text("none")),
            (text("attStmt"), map(&[])),
            (text("authData"), bytes(&auth)),
        ]);
        Registration {
            credential_id: b64(&self.id),
            client_data_json: b64(&client),
            attestation_object: b64(&att),
        }
    }
    fn register(&self, challenge: &[u8]) -> Registration {
        self.register_raw(
            Self::client_data("webauthn.create", challenge, ORIGIN),
            self.auth_data(RP, 0x45, 0, Some(&self.cose())),
        )
    }
    fn assert_raw(&self, client: Vec<u8>, auth: Vec<u8>) -> Assertion {
        let mut signed = auth.clone();
        signed.extend_from_slice(&sha256(&client));
        let sig = self.key.sign(&SystemRandom::new(), &signed).unwrap();
        Assertion {
            credential_id: b64(&self.id),
            client_data_json: b64(&client),
            authenticator_data: b64(&auth),
            signature: b64(sig.as_ref()),
        }
    }
    fn assert(&mut self, challenge: &[u8]) -> Assertion {
        self.count += 1;
        self.assert_raw(
            Self::client_data("webauthn.get", challenge, ORIGIN),
            self.auth_data(RP, 0x05, self.count, None),
        )
    }
}

fn reason(e: PhoneError) -> String {
    match e {
        PhoneError::BadPasskey { reason } => reason,
        other => panic!("not a passkey refusal: {other:?}"),
    }
}

#[test]
fn a_passkey_made_at_pairing_verifies_each_decision_and_its_counter_goes_up() {
    let mut a = Authenticator::new();
    let pairing = sha256(b"plandeck-pair-v1\nsecret");
    let mut kept = verify_registration(&a.register(&pairing), &expect(), &pairing).unwrap();
    assert_eq!(kept.rp_id, RP);
    assert_eq!(
        unb64(&kept.public_key).unwrap(),
        a.key.public_key().as_ref()
    );
    let decision = sha256(b"plandeck-decision-v1\n...");
    let first = a.assert(&decision);
    kept.sign_count = verify_assertion(&first, &kept, &expect(), &decision).unwrap();
    assert_eq!(kept.sign_count, 1);
    // The same assertion again: its counter did not go up (a replay).
    let again = reason(verify_assertion(&first, &kept, &expect(), &decision).unwrap_err());
    assert!(again.contains("counter"), "{again}");
    // Signed for another decision (another request or plan hash): refused.
    let other = sha256(b"plandeck-decision-v1\nanother");
    let e = reason(verify_assertion(&a.assert(&other), &kept, &expect(), &decision).unwrap_err());
    assert!(e.contains("another challenge"), "{e}");
    // An authenticator that keeps no counter (0 every time, as some do): taken.
    let mut zero = Authenticator::new();
    let kept0 = verify_registration(&zero.register(&pairing), &expect(), &pairing).unwrap();
    let z = zero.assert_raw(
        Authenticator::client_data("webauthn.get", &decision, ORIGIN),
        zero.auth_data(RP, 0x05, 0, None),
    );
    assert_eq!(
        verify_assertion(&z, &kept0, &expect(), &decision).unwrap(),
        0
    );
    zero.count = 0;
}

#[test]
fn no_user_verification_wrong_site_or_origin_or_type_is_refused() {
    let mut a = Authenticator::new();
    let c = sha256(b"c");
    let kept = verify_registration(&a.register(&c), &expect(), &c).unwrap();
    // Present but not verified (no fingerprint, face or PIN).
    let r = a.register_raw(
        Authenticator::client_data("webauthn.create", &c, ORIGIN),
        a.auth_data(RP, 0x41, 0, Some(&a.cose())),
    );
    assert!(matches!(
        verify_registration(&r, &expect(), &c),
        Err(PhoneError::UserNotVerified)
    ));
    let n = a.assert_raw(
        Authenticator::client_data("webauthn.get", &c, ORIGIN),
        a.auth_data(RP, 0x01, 5, None),
    );
    assert!(matches!(
        verify_assertion(&n, &kept, &expect(), &c),
        Err(PhoneError::UserNotVerified)
    ));
    // Made for another site (its rp id hash).
    let w = a.assert_raw(
        Authenticator::client_data("webauthn.get", &c, ORIGIN),
        a.auth_data("evil.example", 0x05, 6, None),
    );
    assert!(
        reason(verify_assertion(&w, &kept, &expect(), &c).unwrap_err()).contains("another site")
    );
    // On another origin: a hostile page that got the phone to sign.
    for origin in [
        "https://evil.example",
        "https://phone.example.ts.net:8444",
        "http://phone.example.ts.net:8443",
        "https://phone.example.ts.net:8443.evil.example",
    ] {
        let o = a.assert_raw(
            Authenticator::client_data("webauthn.get", &c, origin),
            a.auth_data(RP, 0x05, 7, None),
        );
        let e = reason(verify_assertion(&o, &kept, &expect(), &c).unwrap_err());
        assert!(e.contains("not this page"), "{origin}: {e}");
    }
    // A registration's client data used as an assertion's, and in a frame of another site.
    let t = a.assert_raw(
        Authenticator::client_data("webauthn.create", &c, ORIGIN),
        a.auth_data(RP, 0x05, 8, None),
    );
    assert!(reason(verify_assertion(&t, &kept, &expect(), &c).unwrap_err()).contains("type"));
    let framed = serde_json::json!({"type": "webauthn.get", "challenge": b64(&c), "origin": ORIGIN, "crossOrigin": true}).to_string();
    let f = a.assert_raw(framed.into_bytes(), a.auth_data(RP, 0x05, 9, None));
    assert!(reason(verify_assertion(&f, &kept, &expect(), &c).unwrap_err()).contains("frame"));
    // Two origins in one client data (a parser that takes the first or the last is fooled).
    let two = format!(
        r#"{{"type":"webauthn.get","challenge":"{}","origin":"https://evil.example","origin":"{ORIGIN}"}}"#,
        b64(&c)
    );
    let d = a.assert_raw(two.into_bytes(), a.auth_data(RP, 0x05, 10, None));
    assert!(verify_assertion(&d, &kept, &expect(), &c).is_err());
    // Another passkey's assertion, and a signature changed.
    let mut other = Authenticator::new();
    other.id = vec![9u8; 20];
    let e = reason(verify_assertion(&other.assert(&c), &kept, &expect(), &c).unwrap_err());
    assert!(e.contains("another passkey"), "{e}");
    other.id = a.id.clone();
    other.count = 20;
    let e = reason(verify_assertion(&other.assert(&c), &kept, &expect(), &c).unwrap_err());
    assert!(e.contains("signature"), "{e}");
    // The page moved to another name since pairing: the passkey is not for it.
    let moved = Expect {
        rp_id: "other.example".to_owned(),
        origin: "https://other.example:8443".to_owned(),
    };
    assert!(
        reason(verify_assertion(&a.assert(&c), &kept, &moved, &c).unwrap_err())
            .contains("pair it again")
    );
}

#[test]
fn hostile_cbor_and_attestation_objects_are_refused_without_a_panic() {
    let a = Authenticator::new();
    let c = sha256(b"c");
    let client = Authenticator::client_data("webauthn.create", &c, ORIGIN);
    let good_auth = a.auth_data(RP, 0x45, 0, Some(&a.cose()));
    let with_att = |att: Vec<u8>| Registration {
        credential_id: b64(&a.id),
        client_data_json: b64(&client),
        attestation_object: b64(&att),
    };
    // An array of one item, nested 10 000 deep.
    let mut deep = vec![0x81u8; 10_000];
    deep.push(0x00);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![0xa0]),
        ("not a map", text("none")),
        ("cut short", {
            let mut m = map(&[(text("authData"), bytes(&good_auth))]);
            m.truncate(m.len() - 5);
            m
        }),
        (
            "a length of 4 GiB",
            vec![
                0xa1, 0x68, b'a', b'u', b't', b'h', b'D', b'a', b't', b'a', 0x5a, 0xff, 0xff, 0xff,
                0xff,
            ],
        ),
        (
            "a map claiming 2^64 entries",
            vec![0xbb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        ),
        ("nested 10 000 deep", deep),
        ("indefinite length", vec![0xbf, 0xff]),
        ("a tag", vec![0xc1, 0x00]),
        ("text not UTF-8", vec![0xa1, 0x62, 0xff, 0xfe, 0x00]),
        ("bytes after the map", {
            let mut m = map(&[
                (text("fmt"), text("none")),
                (text("authData"), bytes(&good_auth)),
            ]);
            m.push(0);
            m
        }),
        (
            "authData twice",
            map(&[
                (text("fmt"), text("none")),
                (text("authData"), bytes(&good_auth)),
                (text("authData"), bytes(&good_auth)),
            ]),
        ),
        (
            "authData as text",
            map(&[(text("fmt"), text("none")), (text("authData"), text("x"))]),
        ),
        ("no fmt", map(&[(text("authData"), bytes(&good_auth))])),
        (
            "authData cut short",
            map(&[
                (text("fmt"), text("none")),
                (text("authData"), bytes(&good_auth[..40])),
            ]),
        ),
        (
            "a credential id longer than the data",
            map(&[
                (text("fmt"), text("none")),
                (
                    text("authData"),
                    bytes(&{
                        let mut x = good_auth[..53].to_vec();
                        x.extend_from_slice(&[0xff, 0xff]);
                        x
                    }),
                ),
            ]),
        ),
        (
            "an RS256 key",
            map(&[
                (text("fmt"), text("none")),
                (
                    text("authData"),
                    bytes(&a.auth_data(
                        RP,
                        0x45,
                        0,
                        Some(&map(&[(int(1), int(3)), (int(3), int(-257))])),
                    )),
                ),
            ]),
        ),
        (
            "a key field twice",
            map(&[
                (text("fmt"), text("none")),
                (
                    text("authData"),
                    bytes(&a.auth_data(
                        RP,
                        0x45,
                        0,
                        Some(&{
                            let p = a.key.public_key().as_ref();
                            map(&[
                                (int(1), int(2)),
                                (int(3), int(-7)),
                                (int(-1), int(1)),
                                (int(-2), bytes(&p[1..33])),
                                (int(-3), bytes(&p[33..65])),
                                (int(-2), bytes(&[0u8; 32])),
                            ])
                        }),
                    )),
                ),
            ]),
        ),
        (
            "no credential (AT unset)",
            map(&[
                (text("fmt"), text("none")),
                (text("authData"), bytes(&a.auth_data(RP, 0x05, 0, None))),
            ]),
        ),
        (
            "bytes after the key",
            map(&[
                (text("fmt"), text("none")),
                (
                    text("authData"),
                    bytes(&{
                        let mut x = good_auth.clone();
                        x.push(0);
                        x
                    }),
                ),
            ]),
        ),
        (
            "another site",
            map(&[
                (text("fmt"), text("none")),
                (
                    text("authData"),
                    bytes(&a.auth_data("evil.example", 0x45, 0, Some(&a.cose()))),
                ),
            ]),
        ),
    ];
    for (what, att) in cases {
        let r = verify_registration(&with_att(att), &expect(), &c);
        assert!(r.is_err(), "{what}: taken");
    }
    // Not base64, too long, client data not JSON, another credential id named.
    let mut r = a.register(&c);
    r.attestation_object = "!!!".to_owned();
    assert!(verify_registration(&r, &expect(), &c).is_err());
    let mut r = a.register(&c);
    r.attestation_object = "A".repeat(1 << 20);
    assert!(reason(verify_registration(&r, &expect(), &c).unwrap_err()).contains("too long"));
    let mut r = a.register(&c);
    r.client_data_json = b64(b"{not json");
    assert!(verify_registration(&r, &expect(), &c).is_err());
    let mut r = a.register(&c);
    r.credential_id = b64(&[1, 2, 3]);
    assert!(reason(verify_registration(&r, &expect(), &c).unwrap_err()).contains("credential id"));
    // The origin checked at pairing too.
    let r = a.register_raw(
        Authenticator::client_data("webauthn.create", &c, "https://evil.example"),
        good_auth.clone(),
    );
    assert!(reason(verify_registration(&r, &expect(), &c).unwrap_err()).contains("not this page"));
    // The good one is taken (the cases above differ from it in one thing each).
    assert!(verify_registration(&a.register(&c), &expect(), &c).is_ok());
}

#[test]
fn assertions_with_hostile_authenticator_data_are_refused_without_a_panic() {
    let mut a = Authenticator::new();
    let c = sha256(b"c");
    let kept = verify_registration(&a.register(&c), &expect(), &c).unwrap();
    let client = Authenticator::client_data("webauthn.get", &c, ORIGIN);
    for auth in [
        vec![],
        vec![0u8; 36],
        a.auth_data(RP, 0x45, 3, Some(&a.cose())), // attested data in an assertion
        a.auth_data(RP, 0x85, 3, None),            // extensions flagged, none there
        {
            let mut x = a.auth_data(RP, 0x85, 3, None);
            x.extend_from_slice(&[0xbb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
            x
        },
        {
            let mut x = a.auth_data(RP, 0x05, 3, None);
            x.push(0);
            x
        },
    ] {
        let s = a.assert_raw(client.clone(), auth.clone());
        assert!(
            verify_assertion(&s, &kept, &expect(), &c).is_err(),
            "{auth:?}"
        );
    }
    let mut s = a.assert(&c);
    s.signature = b64(&[0u8; 300]);
    assert!(verify_assertion(&s, &kept, &expect(), &c).is_err());
    let mut s = a.assert(&c);
    s.client_data_json = "A".repeat(100_000);
    assert!(verify_assertion(&s, &kept, &expect(), &c).is_err());
}

proptest::proptest! {
    /// Any bytes: the reader and the verifier answer, never panic.
    #[test]
    fn any_bytes_never_panic(input in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
        let _ = cbor::decode(&input);
        let a = Authenticator::new();
        let c = sha256(b"c");
        let r = Registration {
            credential_id: b64(&a.id),
            client_data_json: b64(&Authenticator::client_data("webauthn.create", &c, ORIGIN)),
            attestation_object: b64(&input),
        };
        let _ = verify_registration(&r, &expect(), &c);
        let kept = Passkey { credential_id: b64(&a.id), public_key: b64(a.key.public_key().as_ref()), rp_id: RP.to_owned(), sign_count: 0 };
        let s = Assertion {
            credential_id: b64(&a.id),
            client_data_json: b64(&Authenticator::client_data("webauthn.get", &c, ORIGIN)),
            authenticator_data: b64(&input),
            signature: b64(&input),
        };
        let _ = verify_assertion(&s, &kept, &expect(), &c);
    }
}

/// Through the store: pairing keeps the passkey checked against the page's own name and origin;
/// a decision then needs its verified assertion of that very decision, and its counter is kept.
#[test]
fn a_device_paired_with_a_passkey_decides_only_with_its_verified_assertion_of_that_decision() {
    use crate::config::Roots;
    use crate::gate::GateRequest;
    use crate::phone::{self as phone, sign, Signed, SignedDecision, Verdict};
    use ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING;

    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let plan = "# Plan\n\n1. Do the thing.\n";
    let req = GateRequest {
        plan: plan.to_owned(),
        ..GateRequest::for_test("r1")
    };
    crate::durable::write_private(
        &roots.data.join("gate/requests/r1.json"),
        &serde_json::to_vec(&req).unwrap(),
    )
    .unwrap();
    phone::server::write_config(
        &roots,
        &phone::server::PhoneConfig {
            on: true,
            listen: "100.64.0.7:8443".to_owned(),
            cert: "cert.pem".into(),
            key: "key.pem".into(),
            name: Some(RP.to_owned()),
            wait_minutes: 15,
        },
    )
    .unwrap();
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let page_key =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let page_sign = |m: &str| b64(page_key.sign(&rng, m.as_bytes()).unwrap().as_ref());
    let mut a = Authenticator::new();
    let pair = |reg: &dyn Fn(&str) -> Registration| {
        let p = phone::pair_start(&roots).unwrap();
        phone::pair_finish_with(
            &roots,
            &phone::PairRequest {
                secret: p.secret.clone(),
                name: "Pixel".to_owned(),
                public_key: serde_json::Value::String(b64(page_key.public_key().as_ref())),
                signature: page_sign(&sign::canonical_pairing(&p.secret)),
            },
            Some(&reg(&p.secret)),
        )
    };
    // A passkey made on another page (a hostile one holding the link): nothing paired.
    let e = pair(&|secret| {
        let c = sha256(sign::canonical_pairing(secret).as_bytes());
        a.register_raw(
            Authenticator::client_data("webauthn.create", &c, "https://evil.example"),
            a.auth_data(RP, 0x45, 0, Some(&a.cose())),
        )
    })
    .unwrap_err();
    assert_eq!(e.kind(), "badPasskey", "{e}");
    assert!(phone::devices(&roots).unwrap().is_empty());
    let device =
        pair(&|secret| a.register(&sha256(sign::canonical_pairing(secret).as_bytes()))).unwrap();
    assert!(device.passkey.is_some());

    let hash = crate::review::store::hash(plan.as_bytes());
    let older = crate::review::store::hash(b"older");
    let decision = |plan_hash: &str| {
        let nonce = sign::random_token(18).unwrap();
        let expires = crate::timestamp::now().unix_timestamp() + 60;
        let msg = phone::canonical_decision("r1", plan_hash, Verdict::Approve, "", &nonce, expires)
            .unwrap();
        (
            SignedDecision {
                request_id: "r1".to_owned(),
                plan_hash: plan_hash.to_owned(),
                decision: Verdict::Approve,
                feedback: String::new(),
                signed: Signed {
                    device: device.id.clone(),
                    nonce,
                    expires,
                    signature: page_sign(&msg),
                },
            },
            sha256(msg.as_bytes()),
        )
    };
    let nothing_decided = || {
        assert!(!roots.data.join("gate/claims/r1.json").exists());
        assert!(crate::gate::pending(&roots).iter().any(|r| r.id == "r1"));
    };
    // The page's key alone: refused.
    let (d, _) = decision(&hash);
    let e = phone::decide_with_passkey(&roots, &d, None).unwrap_err();
    assert_eq!(e.kind(), "passkeyRequired", "{e}");
    nothing_decided();
    // The person not verified.
    let (d, c) = decision(&hash);
    a.count += 1;
    let no_uv = a.assert_raw(
        Authenticator::client_data("webauthn.get", &c, ORIGIN),
        a.auth_data(RP, 0x01, a.count, None),
    );
    let e = phone::decide_with_passkey(&roots, &d, Some(&no_uv)).unwrap_err();
    assert_eq!(e.kind(), "userNotVerified", "{e}");
    nothing_decided();
    // An assertion of another plan hash.
    let (d, _) = decision(&hash);
    let (_, other) = decision(&older);
    let e = phone::decide_with_passkey(&roots, &d, Some(&a.assert(&other))).unwrap_err();
    assert_eq!(e.kind(), "badPasskey", "{e}");
    nothing_decided();
    // Its own assertion passes every device check (here the plan changed, so nothing is
    // decided): its counter is kept, and the same assertion under a fresh nonce is refused.
    let (d, c) = decision(&older);
    let good = a.assert(&c);
    let e = phone::decide_with_passkey(&roots, &d, Some(&good)).unwrap_err();
    assert_eq!(e.kind(), "planChanged", "{e}");
    let kept = phone::devices(&roots).unwrap()[0].passkey.clone().unwrap();
    assert_eq!(kept.sign_count, a.count);
    let e = phone::decide_with_passkey(&roots, &d, Some(&good)).unwrap_err();
    assert_eq!(e.kind(), "replayed", "{e}");
    let (d2, _) = decision(&older);
    let e = phone::decide_with_passkey(&roots, &d2, Some(&good)).unwrap_err();
    assert_eq!(e.kind(), "badPasskey", "{e}");
    nothing_decided();
}

// ---- Attacks (issue 37's hostile review): a hostile passkey client.

/// A counter that goes backwards (a cloned authenticator behind the real one), or stays: refused.
#[test]
fn a_counter_going_backwards_is_refused() {
    let mut a = Authenticator::new();
    let c = sha256(b"c");
    let mut kept = verify_registration(&a.register(&c), &expect(), &c).unwrap();
    a.count = 9;
    kept.sign_count = verify_assertion(&a.assert(&c), &kept, &expect(), &c).unwrap();
    assert_eq!(kept.sign_count, 10);
    for count in [3, 0, 10] {
        let s = a.assert_raw(
            Authenticator::client_data("webauthn.get", &c, ORIGIN),
            a.auth_data(RP, 0x05, count, None),
        );
        let e = reason(verify_assertion(&s, &kept, &expect(), &c).unwrap_err());
        assert!(e.contains("counter"), "{count}: {e}");
    }
}

/// Nobody present (UP unset) at pairing or for a decision: refused.
#[test]
fn nobody_present_is_refused() {
    let a = Authenticator::new();
    let c = sha256(b"c");
    let kept = verify_registration(&a.register(&c), &expect(), &c).unwrap();
    let r = a.register_raw(
        Authenticator::client_data("webauthn.create", &c, ORIGIN),
        a.auth_data(RP, 0x44, 0, Some(&a.cose())),
    );
    assert!(reason(verify_registration(&r, &expect(), &c).unwrap_err()).contains("nobody"));
    let s = a.assert_raw(
        Authenticator::client_data("webauthn.get", &c, ORIGIN),
        a.auth_data(RP, 0x04, 1, None),
    );
    assert!(reason(verify_assertion(&s, &kept, &expect(), &c).unwrap_err()).contains("nobody"));
}

/// Keys of another algorithm or curve (EdDSA, ES256 on P-384, RS256), and an ES256 key whose
/// point is not on P-256 (it would pair, then every decision be refused as a wrong signature):
/// each refused at pairing with its reason.
#[test]
fn keys_of_another_kind_or_off_the_curve_are_refused_at_pairing() {
    let a = Authenticator::new();
    let c = sha256(b"c");
    let p = a.key.public_key().as_ref();
    let with_key = |cose: Vec<u8>| {
        a.register_raw(
            Authenticator::client_data("webauthn.create", &c, ORIGIN),
            a.auth_data(RP, 0x45, 0, Some(&cose)),
        )
    };
    let kinds = [
        (
            "EdDSA",
            map(&[
                (int(1), int(1)),
                (int(3), int(-8)),
                (int(-1), int(6)),
                (int(-2), bytes(&[1u8; 32])),
            ]),
        ),
        (
            "ES256 on P-384",
            map(&[
                (int(1), int(2)),
                (int(3), int(-7)),
                (int(-1), int(2)),
                (int(-2), bytes(&p[1..33])),
                (int(-3), bytes(&p[33..65])),
            ]),
        ),
        (
            "ES384",
            map(&[
                (int(1), int(2)),
                (int(3), int(-35)),
                (int(-1), int(1)),
                (int(-2), bytes(&p[1..33])),
                (int(-3), bytes(&p[33..65])),
            ]),
        ),
        (
            "the alg as text",
            map(&[
                (int(1), int(2)),
                (int(3), text("ES256")),
                (int(-1), int(1)),
                (int(-2), bytes(&p[1..33])),
                (int(-3), bytes(&p[33..65])),
            ]),
        ),
    ];
    for (what, cose) in kinds {
        let e = reason(verify_registration(&with_key(cose), &expect(), &c).unwrap_err());
        assert!(e.contains("ES256"), "{what}: {e}");
    }
    // Coordinates that are no point of the curve (x, y changed by one bit), and 33-byte ones.
    let mut y = p[33..65].to_vec();
    y[31] ^= 1;
    let off = map(&[
        (int(1), int(2)),
        (int(3), int(-7)),
        (int(-1), int(1)),
        (int(-2), bytes(&p[1..33])),
        (int(-3), bytes(&y)),
    ]);
    let e = reason(verify_registration(&with_key(off), &expect(), &c).unwrap_err());
    assert!(e.contains("not a point of P-256"), "{e}");
    let long = map(&[
        (int(1), int(2)),
        (int(3), int(-7)),
        (int(-1), int(1)),
        (int(-2), bytes(&[0u8; 33])),
        (int(-3), bytes(&p[33..65])),
    ]);
    let e = reason(verify_registration(&with_key(long), &expect(), &c).unwrap_err());
    assert!(e.contains("32 bytes"), "{e}");
}

/// Malformed or huge parts of a passkey's answer: a credential id over WebAuthn's 1023 bytes,
/// client data nested past any parser's depth, with two challenges, or no challenge: refused
/// with a reason, never a panic or a stack overflow.
#[test]
fn malformed_or_huge_client_data_and_ids_are_refused() {
    let mut a = Authenticator::new();
    let c = sha256(b"c");
    let kept = verify_registration(&a.register(&c), &expect(), &c).unwrap();
    let mut r = a.register(&c);
    r.credential_id = b64(&[7u8; 1100]);
    assert!(reason(verify_registration(&r, &expect(), &c).unwrap_err()).contains("too long"));
    let mut s = a.assert(&c);
    s.credential_id = b64(&[7u8; 1100]);
    assert!(reason(verify_assertion(&s, &kept, &expect(), &c).unwrap_err()).contains("too long"));
    let nested = "[".repeat(3000);
    let two = format!(
        r#"{{"type":"webauthn.get","challenge":"{}","challenge":"{}","origin":"{ORIGIN}"}}"#,
        b64(&sha256(b"other")),
        b64(&c)
    );
    let none = format!(r#"{{"type":"webauthn.get","origin":"{ORIGIN}"}}"#);
    for client in [
        nested,
        two,
        none,
        "null".to_owned(),
        "\u{feff}{}".to_owned(),
    ] {
        a.count += 1;
        let s = a.assert_raw(
            client.clone().into_bytes(),
            a.auth_data(RP, 0x05, a.count, None),
        );
        let e = reason(verify_assertion(&s, &kept, &expect(), &c).unwrap_err());
        assert!(e.contains("client data"), "{client:.40}: {e}");
    }
}

/// A registration's answer (made at pairing) replayed as a decision's assertion, and a
/// decision's assertion offered at pairing: the types differ, each refused.
#[test]
fn a_pairings_answer_is_no_decisions_and_the_other_way_round() {
    let mut a = Authenticator::new();
    let c = sha256(b"c");
    let reg = a.register(&c);
    let kept = verify_registration(&reg, &expect(), &c).unwrap();
    let as_assertion = Assertion {
        credential_id: reg.credential_id.clone(),
        client_data_json: reg.client_data_json.clone(),
        authenticator_data: b64(&a.auth_data(RP, 0x05, 1, None)),
        signature: a.assert(&c).signature,
    };
    assert!(verify_assertion(&as_assertion, &kept, &expect(), &c).is_err());
    let s = a.assert(&c);
    let as_registration = Registration {
        credential_id: s.credential_id.clone(),
        client_data_json: s.client_data_json.clone(),
        attestation_object: reg.attestation_object.clone(),
    };
    assert!(
        reason(verify_registration(&as_registration, &expect(), &c).unwrap_err()).contains("type")
    );
}
