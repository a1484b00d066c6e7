//! Web Push: RFC 8291's own example, and a loopback push service (HTTPS, a CA this test makes)
//! that receives the message a filed request makes; the test decrypts it with the subscription's
//! private key and auth secret and finds the title, the id, and nothing of the plan.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::mpsc;

use ring::rand::SystemRandom;
use ring::signature::{
    EcdsaKeyPair, KeyPair, UnparsedPublicKey, ECDSA_P256_SHA256_FIXED,
    ECDSA_P256_SHA256_FIXED_SIGNING,
};

use super::*;
use crate::phone::sign::b64;
use crate::phone::{pair_finish, pair_start, revoke, sign, PairRequest};

/// RFC 8291 §5 and Appendix A.
mod rfc {
    pub const PLAINTEXT: &str = "When I grow up, I want to be a watermelon";
    pub const UA_PUBLIC: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    pub const UA_PRIVATE: &str = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
    pub const AS_PRIVATE: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
    pub const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";
    pub const SALT: &str = "DGv6ra1nlYgDCS1FRnbzlw";
    pub const BODY: &str = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";
}

/// The receiving side (what a browser does): the message's key and salt from its header, the
/// ECDH secret with the subscription's private key, the same key schedule, AES-128-GCM opened,
/// the padding and delimiter taken off.
#[allow(deprecated)]
fn decrypt(body: &[u8], ua_private: &[u8], auth: &[u8]) -> Vec<u8> {
    use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM};
    use ring::agreement::{agree_ephemeral, EphemeralPrivateKey, UnparsedPublicKey, ECDH_P256};
    let salt = &body[..16];
    let rs = u32::from_be_bytes(body[16..20].try_into().unwrap());
    assert_eq!(rs, 4096);
    let idlen = body[20] as usize;
    assert_eq!(idlen, 65);
    let as_public = &body[21..21 + idlen];
    let record = &body[21 + idlen..];
    let rng = ring::test::rand::FixedSliceRandom { bytes: ua_private };
    let mine = EphemeralPrivateKey::generate(&ECDH_P256, &rng).unwrap();
    let ua_public = mine.compute_public_key().unwrap().as_ref().to_vec();
    let (cek, nonce) = agree_ephemeral(mine, &UnparsedPublicKey::new(&ECDH_P256, as_public), |s| {
        message_keys(s, auth, &ua_public, as_public, salt).unwrap()
    })
    .unwrap();
    let key = LessSafeKey::new(UnboundKey::new(&AES_128_GCM, &cek).unwrap());
    let mut data = record.to_vec();
    let plain = key
        .open_in_place(Nonce::assume_unique_for_key(nonce), Aad::empty(), &mut data)
        .expect("the message opens with the subscription's keys")
        .to_vec();
    let end = plain.iter().rposition(|b| *b != 0).unwrap();
    assert_eq!(plain[end], 2, "the last record's delimiter");
    plain[..end].to_vec()
}

#[test]
#[allow(deprecated)]
fn encryption_gives_rfc_8291s_own_example() {
    let as_private = unb64(rfc::AS_PRIVATE).unwrap();
    let rng = ring::test::rand::FixedSliceRandom { bytes: &as_private };
    let salt: [u8; 16] = unb64(rfc::SALT).unwrap().try_into().unwrap();
    let body = encrypt_with(
        rfc::PLAINTEXT.as_bytes(),
        &unb64(rfc::UA_PUBLIC).unwrap(),
        &unb64(rfc::AUTH).unwrap(),
        &rng,
        salt,
    )
    .unwrap();
    assert_eq!(b64(&body), rfc::BODY);
    // And the receiving side opens it.
    let plain = decrypt(
        &body,
        &unb64(rfc::UA_PRIVATE).unwrap(),
        &unb64(rfc::AUTH).unwrap(),
    );
    assert_eq!(plain, rfc::PLAINTEXT.as_bytes());
    // A fresh key and salt each time: two messages of one text differ.
    let a = encrypt(
        b"x",
        &unb64(rfc::UA_PUBLIC).unwrap(),
        &unb64(rfc::AUTH).unwrap(),
    )
    .unwrap();
    let b = encrypt(
        b"x",
        &unb64(rfc::UA_PUBLIC).unwrap(),
        &unb64(rfc::AUTH).unwrap(),
    )
    .unwrap();
    assert_ne!(a, b);
    assert!(encrypt(
        &[b'a'; 5000],
        &unb64(rfc::UA_PUBLIC).unwrap(),
        &unb64(rfc::AUTH).unwrap()
    )
    .is_err());
}

/// A phone: its device key (as WebCrypto makes one) and its push subscription's keys.
struct Phone {
    key: EcdsaKeyPair,
    id: String,
    sub_private: Vec<u8>,
    sub_public: String,
    auth: Vec<u8>,
}

impl Phone {
    #[allow(deprecated)]
    fn pair(roots: &Roots, name: &str) -> Phone {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        let p = pair_start(roots).unwrap();
        let sig = key
            .sign(&rng, sign::canonical_pairing(&p.secret).as_bytes())
            .unwrap();
        let d = pair_finish(
            roots,
            &PairRequest {
                secret: p.secret,
                name: name.to_owned(),
                public_key: serde_json::Value::String(b64(key.public_key().as_ref())),
                signature: b64(sig.as_ref()),
            },
        )
        .unwrap();
        let mut sub_private = vec![0u8; 32];
        let mut auth = vec![0u8; 16];
        rng.fill(&mut sub_private).unwrap();
        rng.fill(&mut auth).unwrap();
        let fixed = ring::test::rand::FixedSliceRandom {
            bytes: &sub_private,
        };
        let k = ring::agreement::EphemeralPrivateKey::generate(&ring::agreement::ECDH_P256, &fixed)
            .unwrap();
        let sub_public = b64(k.compute_public_key().unwrap().as_ref());
        Phone {
            key,
            id: d.id,
            sub_private,
            sub_public,
            auth,
        }
    }

    /// The page's subscribe call for `endpoint`, signed by this phone's key as `device`.
    fn subscription(&self, device: &str, endpoint: &str) -> SignedSubscription {
        let nonce = sign::random_token(18).unwrap();
        let expires = crate::timestamp::now().unix_timestamp() + 60;
        let auth = b64(&self.auth);
        let msg =
            canonical_subscription(endpoint, &self.sub_public, &auth, &nonce, expires).unwrap();
        let sig = self.key.sign(&SystemRandom::new(), msg.as_bytes()).unwrap();
        SignedSubscription {
            endpoint: endpoint.to_owned(),
            p256dh: self.sub_public.clone(),
            auth,
            signed: Signed {
                device: device.to_owned(),
                nonce,
                expires,
                signature: b64(sig.as_ref()),
            },
        }
    }
}

/// What the stand-in received: the request line's path, the headers (lower-case names), the body.
#[derive(Debug)]
struct Received {
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A push service on loopback HTTPS: answers each POST with `status` and hands what it got over.
fn stand_in(dir: &Path, status: u16) -> (u16, mpsc::Receiver<Received>) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(dir.join("server.pem"))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(dir.join("server.key")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .unwrap();
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let conn = rustls::ServerConnection::new(config.clone()).unwrap();
            let mut tls = rustls::StreamOwned::new(conn, stream);
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let head_end = loop {
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    break Some(i + 4);
                }
                match tls.read(&mut chunk) {
                    Ok(0) | Err(_) => break None,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            };
            let Some(head_end) = head_end else { continue };
            let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
            let mut lines = head.split("\r\n");
            let path = lines
                .next()
                .and_then(|l| l.split(' ').nth(1))
                .unwrap_or_default()
                .to_owned();
            let headers: Vec<(String, String)> = lines
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                .collect();
            let length: usize = headers
                .iter()
                .find(|(k, _)| k == "content-length")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let mut body = buf[head_end..].to_vec();
            while body.len() < length {
                match tls.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => body.extend_from_slice(&chunk[..n]),
                }
            }
            let _ = write!(
                tls,
                "HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = tls.flush();
            tls.conn.send_close_notify();
            let _ = tls.flush();
            let _ = tx.send(Received {
                path,
                headers,
                body,
            });
        }
    });
    (port, rx)
}

const PLAN_TEXT: &str = "# Rotate the secret-plan-words key\n\nDrop table users_secret_column.\n";

/// A waiting Claude Code request filed in `cwd`, as the hook files one.
fn file_request(roots: &Roots, id: &str, cwd: &str) -> GateRequest {
    let mut req = GateRequest {
        plan: PLAN_TEXT.to_owned(),
        cwd: cwd.to_owned(),
        ..GateRequest::for_test(id)
    };
    req.agent = crate::agents::Agent::Claude;
    let path = roots.data.join(format!("gate/requests/{id}.json"));
    crate::durable::write_private(&path, &serde_json::to_vec(&req).unwrap()).unwrap();
    req
}

fn recv(rx: &mpsc::Receiver<Received>) -> Received {
    plandeck_testkit::wait_for("the push service to receive a message", || {
        rx.try_recv().ok()
    })
}

#[test]
fn a_filed_request_reaches_the_push_service_encrypted_with_its_title_and_no_plan_text() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let certs = dir.path().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    plandeck_testkit::tls::test_ca(&certs);
    let (port, rx) = stand_in(&certs, 201);
    let phone = Phone::pair(&roots, "Pixel");
    let endpoint = format!("https://127.0.0.1:{port}/push/v2/opaque-token");
    assert_eq!(
        subscribe(&roots, &phone.subscription(&phone.id, &endpoint)).unwrap(),
        Subscribed::Subscribed
    );
    let outbound = Outbound::for_test(&std::fs::read(certs.join("ca.pem")).unwrap()).unwrap();
    let notifier = Arc::new(Notifier::new(&roots, outbound).unwrap());
    let vapid_key = notifier.vapid.public_b64();
    // A request waiting before the server started is not pushed again.
    file_request(&roots, "old1", "/home/u/old");
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = watch(notifier, stop.clone());
    let req = file_request(&roots, "a1b2c3d4e5f6", "/home/u/api\u{202e}evil");
    let got = recv(&rx);
    stop.store(true, Ordering::SeqCst);
    watcher.join().unwrap();

    assert_eq!(got.path, "/push/v2/opaque-token");
    assert_eq!(got.header("content-encoding"), Some("aes128gcm"));
    assert_eq!(got.header("ttl"), Some(TTL_SECONDS.to_string().as_str()));
    // VAPID: a JWT for this push service's origin, signed by the key the page subscribed with.
    let auth = got.header("authorization").unwrap();
    let (t, k) = auth
        .strip_prefix("vapid t=")
        .and_then(|r| r.split_once(", k="))
        .unwrap();
    assert_eq!(k, vapid_key);
    let (input, sig) = t.rsplit_once('.').unwrap();
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, unb64(k).unwrap())
        .verify(input.as_bytes(), &unb64(sig).unwrap())
        .expect("signed by the VAPID key");
    let claims: serde_json::Value =
        serde_json::from_slice(&unb64(input.split('.').nth(1).unwrap()).unwrap()).unwrap();
    assert_eq!(claims["aud"], format!("https://127.0.0.1:{port}"));

    let plain = decrypt(&got.body, &phone.sub_private, &phone.auth);
    let notice: serde_json::Value = serde_json::from_slice(&plain).unwrap();
    let machine = crate::phone::server::machine();
    assert_eq!(
        notice["title"],
        format!("Plan waiting: api⟨U+202E⟩evil · Claude Code · {machine}"),
        "the title, with the hidden character marked"
    );
    assert_eq!(notice["id"], req.id);
    let text = String::from_utf8_lossy(&plain);
    for word in [
        "secret-plan-words",
        "Drop table",
        "users_secret_column",
        "Rotate",
    ] {
        assert!(!text.contains(word), "no plan text in the message: {text}");
        assert!(!got.headers.iter().any(|(_, v)| v.contains(word)));
    }
    assert!(
        rx.try_recv().is_err(),
        "one message, and none for the old request"
    );
}

#[test]
fn subscriptions_are_signed_checked_and_go_with_their_device() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let phone = Phone::pair(&roots, "Pixel");
    let other = Phone::pair(&roots, "Tablet");
    let endpoint = "https://push.example.net/wpush/v2/abc";
    // Another device's key cannot subscribe in this device's name.
    let forged = other.subscription(&phone.id, endpoint);
    assert_eq!(
        subscribe(&roots, &forged).unwrap_err().kind(),
        "badSignature"
    );
    // Replayed: refused.
    let s = phone.subscription(&phone.id, endpoint);
    subscribe(&roots, &s).unwrap();
    assert_eq!(subscribe(&roots, &s).unwrap_err().kind(), "replayed");
    // A changed endpoint under the same signature: refused.
    let mut changed = phone.subscription(&phone.id, endpoint);
    changed.endpoint = "https://push.example.net/wpush/v2/other".to_owned();
    assert_eq!(
        subscribe(&roots, &changed).unwrap_err().kind(),
        "badSignature"
    );
    // Hostile endpoints and keys: refused before anything is kept.
    for bad_endpoint in [
        "http://push.example.net/x".to_owned(),
        "https://user@push.example.net/x".to_owned(),
        format!("https://push.example.net/{}", "a".repeat(2000)),
        "https://push.example.net/a\r\nX: y".to_owned(),
    ] {
        let e = subscribe(&roots, &phone.subscription(&phone.id, &bad_endpoint)).unwrap_err();
        assert_eq!(e.kind(), "badInput", "{bad_endpoint}: {e}");
    }
    let mut bad_key = phone.subscription(&phone.id, endpoint);
    bad_key.p256dh = b64(&[4u8; 65]);
    assert_eq!(subscribe(&roots, &bad_key).unwrap_err().kind(), "badInput");
    let mut bad_auth = phone.subscription(&phone.id, endpoint);
    bad_auth.auth = b64(&[1u8; 5]);
    assert_eq!(subscribe(&roots, &bad_auth).unwrap_err().kind(), "badInput");
    assert_eq!(subscriptions(&roots).unwrap().len(), 1);
    // One per device: a new one replaces it.
    subscribe(
        &roots,
        &phone.subscription(&phone.id, "https://push.example.net/new"),
    )
    .unwrap();
    subscribe(&roots, &other.subscription(&other.id, endpoint)).unwrap();
    let subs = subscriptions(&roots).unwrap();
    assert_eq!(subs.len(), 2);
    assert!(subs
        .iter()
        .any(|s| s.device == phone.id && s.endpoint.ends_with("/new")));
    // Revoked: its subscription is dropped, nothing more goes to it.
    revoke(&roots, "Pixel").unwrap();
    let subs = subscriptions(&roots).unwrap();
    assert_eq!(subs.len(), 1);
    assert_eq!(subs[0].device, other.id);
    let stored = std::fs::read_to_string(crate::phone::dir(&roots).join("push.json")).unwrap();
    assert!(!stored.contains("/new"), "dropped from the file too");
    // Its calls are refused from then on.
    assert_eq!(
        subscribe(&roots, &phone.subscription(&phone.id, endpoint))
            .unwrap_err()
            .kind(),
        "revoked"
    );
    // Unsubscribing (an empty endpoint) drops one's own.
    let mut off = other.subscription(&other.id, "");
    off.p256dh.clear();
    off.auth.clear();
    let msg = canonical_subscription("", "", "", &off.signed.nonce, off.signed.expires).unwrap();
    off.signed.signature = b64(other
        .key
        .sign(&SystemRandom::new(), msg.as_bytes())
        .unwrap()
        .as_ref());
    assert_eq!(subscribe(&roots, &off).unwrap(), Subscribed::Unsubscribed);
    assert!(subscriptions(&roots).unwrap().is_empty());
}

#[test]
fn sending_is_capped_refuses_private_addresses_and_drops_a_gone_subscription() {
    // The cap: MAX_PER_MINUTE in any minute, then room again a minute later.
    let mut cap = Cap::default();
    let t0 = Instant::now();
    for _ in 0..MAX_PER_MINUTE {
        assert!(cap.take(t0));
    }
    assert!(!cap.take(t0 + Duration::from_secs(59)));
    assert!(cap.take(t0 + Duration::from_secs(60)));

    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let certs = dir.path().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    plandeck_testkit::tls::test_ca(&certs);
    let (port, rx) = stand_in(&certs, 410);
    let phone = Phone::pair(&roots, "Pixel");
    let endpoint = format!("https://127.0.0.1:{port}/push/gone");
    subscribe(&roots, &phone.subscription(&phone.id, &endpoint)).unwrap();
    let req = file_request(&roots, "r1", "/home/u/api");

    // Not in a test: a loopback endpoint is refused before any connection.
    let public = Notifier::new(&roots, Outbound::public()).unwrap();
    let sent = public.notify(&req);
    assert_eq!(sent.len(), 1);
    let e = sent[0].result.clone().unwrap_err();
    assert!(e.contains("loopback, private"), "{e}");
    assert!(
        rx.try_recv().is_err(),
        "nothing reached the loopback address"
    );

    // The push service says the subscription is gone: it is dropped.
    let outbound = Outbound::for_test(&std::fs::read(certs.join("ca.pem")).unwrap()).unwrap();
    let n = Notifier::new(&roots, outbound).unwrap();
    let sent = n.notify(&req);
    assert!(
        sent[0].result.as_ref().unwrap_err().contains("gone (410)"),
        "{sent:?}"
    );
    recv(&rx);
    assert!(subscriptions(&roots).unwrap().is_empty());

    // Over the cap, nothing goes.
    let (port, rx) = stand_in(&certs, 201);
    subscribe(
        &roots,
        &phone.subscription(&phone.id, &format!("https://127.0.0.1:{port}/push/ok")),
    )
    .unwrap();
    for _ in 0..MAX_PER_MINUTE - 1 {
        assert!(n.notify(&req)[0].result.is_ok());
        recv(&rx);
    }
    let sent = n.notify(&req);
    assert_eq!(sent[0].result, Err("capped".to_owned()));
    assert!(rx.try_recv().is_err());
}

#[test]
fn ntfy_gets_a_view_link_only_under_the_same_cap() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    assert!(set_ntfy(&roots, Some("http://ntfy.example/topic")).is_err());
    assert!(set_ntfy(&roots, Some("https://ntfy.example/a b")).is_err());
    assert_eq!(ntfy(&roots).unwrap(), None);
    let certs = dir.path().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    plandeck_testkit::tls::test_ca(&certs);
    let (port, rx) = stand_in(&certs, 200);
    let topic = format!("https://127.0.0.1:{port}/my-own-topic");
    set_ntfy(&roots, Some(&topic)).unwrap();
    assert_eq!(ntfy(&roots).unwrap().as_deref(), Some(topic.as_str()));
    crate::phone::server::write_config(
        &roots,
        &crate::phone::server::PhoneConfig {
            on: true,
            listen: "100.64.0.7:8443".to_owned(),
            cert: "c.pem".into(),
            key: "k.pem".into(),
            name: Some("box.tailnet.ts.net".to_owned()),
            wait_minutes: 15,
        },
    )
    .unwrap();
    let req = file_request(&roots, "r1", "/home/u/api");
    let outbound = Outbound::for_test(&std::fs::read(certs.join("ca.pem")).unwrap()).unwrap();
    let n = Notifier::new(&roots, outbound).unwrap();
    let sent = n.notify(&req);
    assert_eq!(
        sent,
        vec![Sent {
            to: "ntfy".into(),
            result: Ok(200)
        }]
    );
    let got = recv(&rx);
    assert_eq!(got.path, "/my-own-topic");
    assert_eq!(
        got.header("click"),
        Some("https://box.tailnet.ts.net:8443/")
    );
    let body = String::from_utf8_lossy(&got.body);
    assert_eq!(body, "A plan is waiting in Plandeck.");
    for word in ["secret-plan-words", "api", "Claude"] {
        assert!(!body.contains(word), "a view link only: {body}");
    }
    for _ in 0..MAX_PER_MINUTE - 1 {
        assert!(n.notify(&req)[0].result.is_ok());
        recv(&rx);
    }
    assert_eq!(n.notify(&req)[0].result, Err("capped".to_owned()));
    set_ntfy(&roots, None).unwrap();
    assert!(n.notify(&req).is_empty());
}

#[test]
fn the_install_and_push_routes_are_served_and_subscribing_needs_a_signature() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let (s, ty, body) = route(&roots, "GET", "/manifest.webmanifest", b"").unwrap();
    assert_eq!((s, ty), ("200 OK", "application/manifest+json"));
    let m: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(m["start_url"], "/");
    assert_eq!(m["display"], "standalone");
    let (_, ty, sw) = route(&roots, "GET", "/sw.js", b"").unwrap();
    assert!(ty.starts_with("text/javascript"));
    let sw = String::from_utf8(sw).unwrap();
    assert!(sw.contains("showNotification"));
    assert!(
        !sw.contains("addEventListener(\"fetch\"") && !sw.contains("caches."),
        "the worker caches nothing"
    );
    let (_, _, key) = route(&roots, "GET", "/api/push/key", b"").unwrap();
    let key: serde_json::Value = serde_json::from_slice(&key).unwrap();
    assert_eq!(unb64(key["key"].as_str().unwrap()).unwrap().len(), 65);
    let unsigned = br#"{"endpoint":"https://push.example.net/x","p256dh":"","auth":"","device":"0123456789abcdef","nonce":"aaaaaaaaaaaaaaaaaaaa","expires":1,"signature":"AA"}"#;
    let (s, _, _) = route(&roots, "POST", "/api/push/subscribe", unsigned).unwrap();
    assert_ne!(s, "200 OK");
    assert!(route(&roots, "GET", "/api/pending", b"").is_none());
}

/// A plan that starts waiting on another machine is pushed too: its machine named, its opaque id,
/// no plan text. Those waiting when a machine is first heard from, again after it comes back, and
/// a permission request are not pushed.
#[test]
fn a_plan_waiting_on_another_machine_is_pushed_naming_it_with_no_plan_text() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let certs = dir.path().join("certs");
    plandeck_testkit::tls::test_ca_for(&certs, "IP:127.0.0.1");
    let (port, rx) = stand_in(&certs, 201);
    let phone = Phone::pair(&roots, "Pixel");
    let endpoint = format!("https://127.0.0.1:{port}/push/v2/opaque-token");
    subscribe(&roots, &phone.subscription(&phone.id, &endpoint)).unwrap();
    let outbound = Outbound::for_test(&std::fs::read(certs.join("ca.pem")).unwrap()).unwrap();
    let notifier = Arc::new(Notifier::new(&roots, outbound).unwrap());
    let theirs = |machine: &str, id: &str, cwd: &str, kind: crate::gate::RequestKind| {
        let mut req = GateRequest {
            plan: PLAN_TEXT.to_owned(),
            cwd: cwd.to_owned(),
            kind,
            machine: Some(machine.to_owned()),
            ..GateRequest::for_test(&crate::elsewhere::on_machine(machine, id))
        };
        req.agent = crate::agents::Agent::Claude;
        req
    };
    let plan = crate::gate::RequestKind::Plan;
    let now: Arc<Mutex<Waiting>> = Arc::new(Mutex::new(vec![(
        "box".to_owned(),
        vec![theirs("box", "old1", "/srv/old", plan)],
    )]));
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (now, asked) = (now.clone(), asked.clone());
        watch_others(
            notifier,
            Box::new(move || {
                asked.fetch_add(1, Ordering::SeqCst);
                now.lock().unwrap().clone()
            }),
            Duration::from_millis(20),
            stop.clone(),
        )
    };
    let asked_again = |n: usize| {
        let from = asked.load(Ordering::SeqCst);
        plandeck_testkit::wait_for("the machines asked again", || {
            (asked.load(Ordering::SeqCst) >= from + n).then_some(())
        });
    };
    asked_again(1);
    // Heard from: a permission request, a machine first heard from with a plan waiting, the
    // first machine gone then back: none pushed.
    now.lock().unwrap()[0].1.push(theirs(
        "box",
        "tool1",
        "/srv/x",
        crate::gate::RequestKind::Permission,
    ));
    now.lock().unwrap().push((
        "lab".to_owned(),
        vec![theirs("lab", "waiting1", "/srv/lab", plan)],
    ));
    asked_again(2);
    let kept = now.lock().unwrap().remove(0);
    asked_again(2);
    now.lock().unwrap().push(kept);
    asked_again(2);
    // A new plan there: pushed.
    now.lock().unwrap()[1]
        .1
        .push(theirs("box", "new1", "/srv/shop\u{1b}[2J", plan));
    let got = recv(&rx);
    let plain = decrypt(&got.body, &phone.sub_private, &phone.auth);
    let notice: serde_json::Value = serde_json::from_slice(&plain).unwrap();
    assert_eq!(notice["id"], "@box/new1", "{notice}");
    assert_eq!(
        notice["title"],
        "Plan waiting: shop [2J · Claude Code · box"
    );
    let text = String::from_utf8_lossy(&plain);
    for word in [
        "secret-plan-words",
        "Drop table",
        "users_secret_column",
        "Rotate",
    ] {
        assert!(!text.contains(word), "no plan text in the message: {text}");
        assert!(!got.headers.iter().any(|(_, v)| v.contains(word)));
    }
    asked_again(3);
    stop.store(true, Ordering::SeqCst);
    watcher.join().unwrap();
    assert!(rx.try_recv().is_err(), "one message only");
}
