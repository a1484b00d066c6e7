//! Pairing and signed decisions: every refusal, with nothing decided.

use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};

use super::*;
use crate::gate::{GateRequest, GateStatus};

/// A phone's key pair, as WebCrypto makes one.
struct Phone {
    key: EcdsaKeyPair,
}

impl Phone {
    fn new() -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        Self {
            key: EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
                .unwrap(),
        }
    }
    fn public(&self) -> serde_json::Value {
        serde_json::Value::String(sign::b64(self.key.public_key().as_ref()))
    }
    fn sign(&self, message: &str) -> String {
        let sig = self
            .key
            .sign(&SystemRandom::new(), message.as_bytes())
            .unwrap();
        sign::b64(sig.as_ref())
    }
    fn pair(&self, roots: &Roots, name: &str) -> Device {
        let p = pair_start(roots).unwrap();
        pair_finish(
            roots,
            &PairRequest {
                secret: p.secret.clone(),
                name: name.to_owned(),
                public_key: self.public(),
                signature: self.sign(&sign::canonical_pairing(&p.secret)),
            },
        )
        .unwrap()
    }
    /// A decision signed by this key, claiming to be `device`.
    fn decision(
        &self,
        device: &str,
        plan_hash: &str,
        verdict: Verdict,
        feedback: &str,
        expires: i64,
    ) -> SignedDecision {
        let nonce = sign::random_token(18).unwrap();
        let msg = canonical_decision("r1", plan_hash, verdict, feedback, &nonce, expires).unwrap();
        SignedDecision {
            request_id: "r1".to_owned(),
            plan_hash: plan_hash.to_owned(),
            decision: verdict,
            feedback: feedback.to_owned(),
            signed: Signed {
                device: device.to_owned(),
                nonce,
                expires,
                signature: self.sign(&msg),
            },
        }
    }
}

const PLAN: &str = "# Plan\n\n1. Do the thing.\n";

fn soon() -> i64 {
    crate::timestamp::now().unix_timestamp() + 60
}

/// A store with one waiting request `r1` whose plan is [`PLAN`]; returns its plan hash.
fn store_with_request() -> (tempfile::TempDir, Roots, String) {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let req = GateRequest {
        plan: PLAN.to_owned(),
        ..GateRequest::for_test("r1")
    };
    let path = roots.data.join("gate/requests/r1.json");
    durable::write_private(&path, &serde_json::to_vec(&req).unwrap()).unwrap();
    (dir, roots, crate::review::store::hash(PLAN.as_bytes()))
}

/// Nothing was decided on `r1`: no claim stands and the request still waits.
fn nothing_decided(roots: &Roots) {
    assert!(!roots.data.join("gate/claims/r1.json").exists());
    let req: GateRequest =
        serde_json::from_slice(&std::fs::read(roots.data.join("gate/requests/r1.json")).unwrap())
            .unwrap();
    assert_eq!(req.status, GateStatus::Waiting);
    assert!(req.decision.is_none());
}

fn refused(roots: &Roots, d: &SignedDecision, kind: &str) -> PhoneError {
    let e = decide(roots, d).expect_err("refused");
    assert_eq!(e.kind(), kind, "{e}");
    nothing_decided(roots);
    e
}

#[test]
fn a_pairing_secret_is_kept_hashed_and_used_once() {
    let (_d, roots, _) = store_with_request();
    let phone = Phone::new();
    let p = pair_start(&roots).unwrap();
    let stored = std::fs::read_to_string(dir(&roots).join("pairings.json")).unwrap();
    assert!(
        !stored.contains(&p.secret),
        "the secret itself is never stored"
    );
    let req = PairRequest {
        secret: p.secret.clone(),
        name: "Pixel".to_owned(),
        public_key: phone.public(),
        signature: phone.sign(&sign::canonical_pairing(&p.secret)),
    };
    let device = pair_finish(&roots, &req).unwrap();
    assert_eq!(device.name, "Pixel");
    assert!(!device.revoked);
    assert_eq!(devices(&roots).unwrap(), vec![device]);
    // Used: the same link pairs nothing more.
    let again = pair_finish(&roots, &req).unwrap_err();
    assert_eq!(again.kind(), "pairingUnknown", "{again}");
    assert_eq!(devices(&roots).unwrap().len(), 1);
}

#[test]
fn a_pairing_link_expires_and_a_key_not_held_pairs_nothing() {
    let (_d, roots, _) = store_with_request();
    let phone = Phone::new();
    let other = Phone::new();
    // Signed by another key than the one offered: refused, and the secret is gone.
    let p = pair_start(&roots).unwrap();
    let e = pair_finish(
        &roots,
        &PairRequest {
            secret: p.secret.clone(),
            name: "Pixel".to_owned(),
            public_key: phone.public(),
            signature: other.sign(&sign::canonical_pairing(&p.secret)),
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), "badSignature", "{e}");
    // An expired link.
    let p = pair_start(&roots).unwrap();
    let path = dir(&roots).join("pairings.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let past = crate::timestamp::format(crate::timestamp::now_seconds() - time::Duration::hours(1));
    let text = text.replace(&p.expires, &past);
    durable::write_private(&path, text.as_bytes()).unwrap();
    let e = pair_finish(
        &roots,
        &PairRequest {
            secret: p.secret.clone(),
            name: "Pixel".to_owned(),
            public_key: phone.public(),
            signature: phone.sign(&sign::canonical_pairing(&p.secret)),
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), "pairingExpired", "{e}");
    assert!(devices(&roots).unwrap().is_empty());
}

#[test]
fn keys_are_read_as_a_browser_gives_them() {
    let phone = Phone::new();
    let raw = phone.key.public_key().as_ref().to_vec();
    let mut spki = sign::SPKI_P256_PREFIX_FOR_TESTS.to_vec();
    spki.extend_from_slice(&raw);
    let jwk = serde_json::json!({"kty": "EC", "crv": "P-256",
        "x": sign::b64(&raw[1..33]), "y": sign::b64(&raw[33..]), "ext": true});
    for v in [phone.public(), serde_json::json!(sign::b64(&spki)), jwk] {
        assert_eq!(sign::parse_public_key(&v).unwrap(), raw);
    }
    let private = serde_json::json!({"kty": "EC", "crv": "P-256", "x": "", "y": "", "d": "x"});
    assert_eq!(
        sign::parse_public_key(&private).unwrap_err().kind(),
        "badKey"
    );
    assert_eq!(
        sign::parse_public_key(&serde_json::json!("AAAA"))
            .unwrap_err()
            .kind(),
        "badKey"
    );
}

#[test]
fn a_decision_from_no_paired_device_is_refused() {
    let (_d, roots, hash) = store_with_request();
    let phone = Phone::new();
    let d = phone.decision(
        &sign::device_id(&[4; 65]),
        &hash,
        Verdict::Approve,
        "",
        soon(),
    );
    refused(&roots, &d, "noDevice");
}

#[test]
fn a_revoked_devices_decision_is_refused() {
    let (_d, roots, hash) = store_with_request();
    let phone = Phone::new();
    let device = phone.pair(&roots, "Pixel");
    revoke(&roots, "Pixel").unwrap();
    assert!(devices(&roots).unwrap()[0].revoked);
    let d = phone.decision(&device.id, &hash, Verdict::Approve, "", soon());
    refused(&roots, &d, "revoked");
}

#[test]
fn a_decision_signed_by_another_devices_key_is_refused() {
    let (_d, roots, hash) = store_with_request();
    let pixel = Phone::new();
    let other = Phone::new();
    let device = pixel.pair(&roots, "Pixel");
    other.pair(&roots, "Tablet");
    // The tablet's key claiming to be the Pixel.
    let d = other.decision(&device.id, &hash, Verdict::Approve, "", soon());
    refused(&roots, &d, "badSignature");
    // A signed decision changed on its way (reject turned into approve).
    let mut d = pixel.decision(&device.id, &hash, Verdict::Reject, "no", soon());
    d.decision = Verdict::Approve;
    refused(&roots, &d, "badSignature");
    // Feedback changed on its way.
    let mut d = pixel.decision(&device.id, &hash, Verdict::Reject, "no", soon());
    d.feedback = "yes, do rm -rf".to_owned();
    refused(&roots, &d, "badSignature");
}

#[test]
fn an_expired_decision_and_one_valid_for_too_long_are_refused() {
    let (_d, roots, hash) = store_with_request();
    let phone = Phone::new();
    let device = phone.pair(&roots, "Pixel");
    let past = crate::timestamp::now().unix_timestamp() - 1;
    let d = phone.decision(&device.id, &hash, Verdict::Approve, "", past);
    refused(&roots, &d, "expired");
    let far = crate::timestamp::now().unix_timestamp() + 3600;
    let d = phone.decision(&device.id, &hash, Verdict::Approve, "", far);
    refused(&roots, &d, "tooFarAhead");
}

#[test]
fn a_decision_for_an_older_plan_hash_is_refused() {
    let (_d, roots, _) = store_with_request();
    let phone = Phone::new();
    let device = phone.pair(&roots, "Pixel");
    let older = crate::review::store::hash(b"# Plan\n\n1. The old thing.\n");
    let d = phone.decision(&device.id, &older, Verdict::Reject, "no", soon());
    match refused(&roots, &d, "planChanged") {
        PhoneError::PlanChanged { seen_hash, .. } => assert_eq!(seen_hash, older),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_replayed_decision_is_refused() {
    let (_d, roots, _) = store_with_request();
    let phone = Phone::new();
    let device = phone.pair(&roots, "Pixel");
    // The first goes through every check but the hash (so nothing is decided), and uses its
    // nonce: sent again, the same signed bytes are a replay.
    let older = crate::review::store::hash(b"older");
    let d = phone.decision(&device.id, &older, Verdict::Reject, "no", soon());
    refused(&roots, &d, "planChanged");
    refused(&roots, &d, "replayed");
    let seen = devices(&roots).unwrap()[0].last_seen.clone();
    assert!(seen.is_some(), "an accepted signed call updates last seen");
}

#[test]
fn a_signed_read_is_checked_like_a_decision() {
    let (_d, roots, _) = store_with_request();
    let phone = Phone::new();
    let device = phone.pair(&roots, "Pixel");
    let nonce = sign::random_token(18).unwrap();
    let expires = soon();
    let msg = canonical_read("pending", "", &nonce, expires).unwrap();
    let signed = Signed {
        device: device.id.clone(),
        nonce,
        expires,
        signature: phone.sign(&msg),
    };
    assert_eq!(
        verify(&roots, &signed, msg.as_bytes()).unwrap().id,
        device.id
    );
    assert_eq!(
        verify(&roots, &signed, msg.as_bytes()).unwrap_err().kind(),
        "replayed"
    );
    // A line break in a field never makes two calls sign the same bytes.
    assert!(canonical_read("plan\nx", "", "n", 1).is_err());
}

/// The page turned on with `wait_minutes`, and a server seen running (its lock held, its state
/// written) for as long as the returned lock is kept.
fn page_served(roots: &Roots, wait_minutes: u32) -> std::fs::File {
    let config = server::PhoneConfig {
        on: true,
        listen: "127.0.0.1:9".to_owned(),
        cert: "cert.pem".into(),
        key: "key.pem".into(),
        name: None,
        wait_minutes,
    };
    server::write_config(roots, &config).unwrap();
    let lock = durable::open_private(&dir(roots).join("server.lock")).unwrap();
    lock.try_lock().unwrap();
    let state = server::ServerState {
        pid: std::process::id(),
        listen: config.listen.clone(),
        url: "https://127.0.0.1:9/".to_owned(),
        started: crate::timestamp::format(now()),
        by: "a test".to_owned(),
    };
    write(roots, "server.json", &Some(state)).unwrap();
    lock
}

/// The phone makes a signed read (as the page does when it lists the queue): it is seen now.
fn seen(roots: &Roots, phone: &Phone, device: &Device) {
    let nonce = sign::random_token(18).unwrap();
    let msg = canonical_read("pending", "", &nonce, soon()).unwrap();
    let signed = Signed {
        device: device.id.clone(),
        nonce,
        expires: soon(),
        signature: phone.sign(&msg),
    };
    verify(roots, &signed, msg.as_bytes()).unwrap();
}

fn plan_hook(roots: &Roots) -> std::thread::JoinHandle<crate::gate::HookOutcome> {
    let stdin = serde_json::json!({
        "session_id": "s-phone", "cwd": "/w/shop", "hook_event_name": "PreToolUse",
        "tool_name": "ExitPlanMode", "tool_input": {"plan": PLAN},
    })
    .to_string();
    let roots = roots.clone();
    let opts = crate::gate::HookOptions {
        deadline: std::time::Duration::from_secs(120),
        hook_pid: std::process::id(),
        agent_pid: None,
        tmux_env: None,
    };
    std::thread::spawn(move || crate::gate::hook_claude(&roots, stdin.as_bytes(), opts))
}

#[test]
fn a_plan_hook_waits_while_a_paired_phone_was_seen_within_the_chosen_minutes() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let phone = Phone::new();
    let device = phone.pair(&roots, "Pixel");
    let lock = page_served(&roots, 15);
    // No window, and the phone never seen: nobody to wait for, the terminal answers.
    assert!(!crate::phone::someone_to_decide(&roots));
    let out = plan_hook(&roots).join().unwrap();
    assert!(out.stderr.contains("not running"), "{out:?}");
    assert!(crate::gate::pending(&roots).is_empty());

    // Seen just now: the hook waits, and the phone decides it.
    seen(&roots, &phone, &device);
    assert!(crate::phone::someone_to_decide(&roots));
    let hook = plan_hook(&roots);
    let req = plandeck_testkit::wait_for("the request to wait for the phone", || {
        crate::gate::pending(&roots).into_iter().next()
    });
    let nonce = sign::random_token(18).unwrap();
    let hash = req.plan_hash.clone().unwrap();
    let msg =
        canonical_decision(&req.id, &hash, Verdict::Reject, "Not yet.", &nonce, soon()).unwrap();
    let d = SignedDecision {
        request_id: req.id.clone(),
        plan_hash: hash,
        decision: Verdict::Reject,
        feedback: "Not yet.".to_owned(),
        signed: Signed {
            device: device.id.clone(),
            nonce,
            expires: soon(),
            signature: phone.sign(&msg),
        },
    };
    decide(&roots, &d).unwrap();
    let out = hook.join().unwrap();
    assert!(
        out.stdout.contains("\"deny\"") && out.stdout.contains("Not yet."),
        "{out:?}"
    );

    // The page stops being served while a hook waits: it falls back to the terminal.
    let hook = plan_hook(&roots);
    plandeck_testkit::wait_for("the second request", || {
        crate::gate::pending(&roots).into_iter().next()
    });
    drop(lock);
    let out = hook.join().unwrap();
    assert!(!out.stdout.contains("\"allow\""), "{out:?}");
    assert!(
        crate::gate::pending(&roots).is_empty(),
        "closed, not left waiting"
    );

    // Seen longer ago than the person's minutes, a wait of 0, or revoked: nobody to wait for.
    let lock = page_served(&roots, 15);
    assert!(crate::phone::someone_to_decide(&roots));
    let mut file: DeviceFile = read(&roots, "devices.json").unwrap();
    file.devices[0].last_seen = Some(crate::timestamp::format(
        now() - time::Duration::minutes(16),
    ));
    write(&roots, "devices.json", &file).unwrap();
    assert!(!crate::phone::someone_to_decide(&roots));
    seen(&roots, &phone, &device);
    assert!(crate::phone::someone_to_decide(&roots));
    drop(lock);
    let lock = page_served(&roots, 0);
    assert!(!crate::phone::someone_to_decide(&roots), "a wait of 0");
    drop(lock);
    let _lock = page_served(&roots, 15);
    assert!(crate::phone::someone_to_decide(&roots));
    revoke(&roots, "Pixel").unwrap();
    assert!(!crate::phone::someone_to_decide(&roots), "revoked");
}

/// The phone shows a plan and nothing else: an ACP agent's permission request (a command to run,
/// a file to write) is listed there with no word of what it would allow, so a phone's approval of
/// one is refused (hostile review), with nothing decided. Its rejection goes (it allows nothing).
#[test]
fn a_phone_cannot_approve_a_permission_request_it_was_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let pid = std::process::id();
    let opt = |id: &str, kind: &str| crate::gate::AcpOption {
        option_id: id.to_owned(),
        name: id.to_owned(),
        kind: kind.to_owned(),
    };
    let req = GateRequest {
        kind: crate::gate::RequestKind::Permission,
        hook_pid: pid,
        hook_start_time: crate::process::start_time(pid),
        acp: Some(crate::gate::AcpAsk {
            agent_name: "claude-acp".into(),
            tool_call_id: "c1".into(),
            title: "Run a command".into(),
            tool_kind: Some("execute".into()),
            command: Some("rm -rf ~".into()),
            path: None,
            diff: None,
            options: vec![opt("yes", "allow_always"), opt("no", "reject_once")],
            chosen: None,
        }),
        ..GateRequest::for_test("r1")
    };
    let path = roots.data.join("gate/requests/r1.json");
    durable::write_private(&path, &serde_json::to_vec(&req).unwrap()).unwrap();
    let phone = Phone::new();
    let device = phone.pair(&roots, "Pixel");
    // What the gate checks a phone's hash against: the (empty) plan of the request.
    let hash = crate::review::store::hash(b"");
    let d = phone.decision(&device.id, &hash, Verdict::Approve, "", soon());
    let e = decide_with(
        &roots,
        &d,
        DeliveryOptions {
            hook_timeout: std::time::Duration::from_millis(50),
            ..DeliveryOptions::default()
        },
    )
    .expect_err("a permission the phone never showed is not approved from it");
    assert_eq!(e.kind(), "badInput", "{e}");
    nothing_decided(&roots);
    let note = phone.decision(&device.id, &hash, Verdict::ApproveWithNote, "ok", soon());
    let e = decide(&roots, &note).expect_err("nor with a note");
    assert_eq!(e.kind(), "badInput", "{e}");
    nothing_decided(&roots);
}

// ---- Attacks (issue 37's hostile review): a hostile page in the phone's browser, an old
// pairing link. Each is refused with its reason, nothing read or decided.

/// The page served at `https://127.0.0.1:8443` (named `phone.example` when `name` is given).
fn page_at(roots: &Roots, name: Option<&str>) {
    server::write_config(
        roots,
        &server::PhoneConfig {
            on: true,
            listen: "127.0.0.1:8443".to_owned(),
            cert: "cert.pem".into(),
            key: "key.pem".into(),
            name: name.map(str::to_owned),
            wait_minutes: 15,
        },
    )
    .unwrap();
}

/// A call as a browser sends it: from the page at `origin`, the browser's `Sec-Fetch-Site`.
fn call(
    path: &str,
    body: &impl serde::Serialize,
    origin: Option<&str>,
    site: Option<&str>,
) -> server::Request {
    server::Request {
        method: "POST".to_owned(),
        path: path.to_owned(),
        body: serde_json::to_vec(body).unwrap(),
        origin: origin.map(str::to_owned),
        fetch_site: site.map(str::to_owned),
    }
}

fn kind_of(r: &server::Response) -> String {
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    v["error"]["kind"].as_str().unwrap_or_default().to_owned()
}

/// A page of another site open in the phone's browser calls the page's API (a `fetch` with
/// `no-cors`, a form posted as `text/plain`, a forged `Origin` or none the page's): refused
/// before anything is read, so the signed call it carried (had it one) is not even spent; the
/// same call from the page itself is answered.
#[test]
fn a_hostile_page_in_the_phones_browser_is_refused_before_anything_is_read() {
    let (_d, roots, hash) = store_with_request();
    page_at(&roots, Some("phone.example"));
    let phone = Phone::new();
    let device = phone.pair(&roots, "Pixel");
    let nonce = sign::random_token(18).unwrap();
    let expires = soon();
    let read = Signed {
        device: device.id.clone(),
        nonce: nonce.clone(),
        expires,
        signature: phone.sign(&canonical_read("pending", "", &nonce, expires).unwrap()),
    };
    for (origin, site) in [
        (Some("https://evil.example"), Some("cross-site")),
        // The browser's word alone, or the origin alone: each enough.
        (None, Some("cross-site")),
        (Some("https://evil.example"), None),
        // A sibling on the same site, a sandboxed frame or a file, another port, plain http.
        (Some("https://phone.example:8443"), Some("same-site")),
        (Some("null"), None),
        (Some("https://phone.example:8444"), None),
        (Some("http://phone.example:8443"), None),
        (Some("https://phone.example:8443.evil.example"), None),
    ] {
        let r = server::respond_to(&roots, &call("/api/pending", &read, origin, site));
        assert_eq!(r.status, "403 Forbidden", "{origin:?} {site:?}");
        assert_eq!(kind_of(&r), "crossOrigin", "{origin:?} {site:?}");
        let said = String::from_utf8_lossy(&r.body).into_owned();
        assert!(
            said.contains("another site") || said.contains("not this page"),
            "{said}"
        );
    }
    // A decision from there: refused, nothing decided.
    let d = phone.decision(&device.id, &hash, Verdict::Approve, "", soon());
    let r = server::respond_to(
        &roots,
        &call(
            "/api/decide",
            &d,
            Some("https://evil.example"),
            Some("cross-site"),
        ),
    );
    assert_eq!(kind_of(&r), "crossOrigin");
    nothing_decided(&roots);
    // A pairing link's secret a hostile page saw, posted from there: refused, and the secret
    // still pairs the phone from the page itself.
    let p = pair_start(&roots).unwrap();
    let other = Phone::new();
    let pairing = serde_json::json!({
        "secret": p.secret, "name": "Evil", "publicKey": other.public(),
        "signature": other.sign(&sign::canonical_pairing(&p.secret)),
    });
    let r = server::respond_to(
        &roots,
        &call(
            "/api/pair",
            &pairing,
            Some("https://evil.example"),
            Some("cross-site"),
        ),
    );
    assert_eq!(kind_of(&r), "crossOrigin");
    assert_eq!(
        devices(&roots).unwrap().len(),
        1,
        "nothing paired from there"
    );
    // The push subscription too (the server would push to where the hostile page says).
    let r = server::respond_to(
        &roots,
        &call(
            "/api/push/subscribe",
            &serde_json::json!({}),
            Some("https://evil.example"),
            None,
        ),
    );
    assert_eq!(kind_of(&r), "crossOrigin");
    // From the page itself (its name's origin, or its address's): answered, the very same call.
    let ok = server::respond_to(
        &roots,
        &call(
            "/api/pending",
            &read,
            Some("https://phone.example:8443"),
            Some("same-origin"),
        ),
    );
    assert_eq!(ok.status, "200 OK", "{}", String::from_utf8_lossy(&ok.body));
    let r = server::respond_to(
        &roots,
        &call(
            "/api/pair",
            &pairing,
            Some("https://127.0.0.1:8443"),
            Some("same-origin"),
        ),
    );
    assert_eq!(r.status, "200 OK", "{}", String::from_utf8_lossy(&r.body));
    // A client that is no browser sends no Origin: it is checked by its signature alone.
    let r = server::respond_to(&roots, &call("/api/pending", &read, None, None));
    assert_eq!(kind_of(&r), "replayed");
    // The page itself may be opened from a link anywhere (it holds no data).
    let get = server::Request {
        method: "GET".to_owned(),
        path: "/".to_owned(),
        origin: Some("https://evil.example".to_owned()),
        fetch_site: Some("cross-site".to_owned()),
        ..Default::default()
    };
    assert_eq!(server::respond_to(&roots, &get).status, "200 OK");
}

/// Two `Origin` headers (one the page's, one not: a forger hoping the first or the last is
/// read): the request is not read at all.
#[test]
fn a_request_with_two_origins_is_not_read() {
    let two = b"POST /api/pending HTTP/1.1\r\nOrigin: https://127.0.0.1:8443\r\nOrigin: https://evil.example\r\nContent-Length: 2\r\n\r\n{}";
    let e = server::read_request(&mut &two[..]).unwrap_err();
    assert!(e.contains("twice"), "{e}");
    let one = b"POST /api/pending HTTP/1.1\r\norigin: https://evil.example\r\nSec-Fetch-Site: cross-site\r\nContent-Length: 2\r\n\r\n{}";
    let r = server::read_request(&mut &one[..]).unwrap().unwrap();
    assert_eq!(r.origin.as_deref(), Some("https://evil.example"));
    assert_eq!(r.fetch_site.as_deref(), Some("cross-site"));
}

/// Framing and redirects: every answer (the page, a file, a refusal, a 404, a 405) says it may
/// not be framed by another site (clickjacking the Approve button) and none is a redirect (the
/// page never sends the phone elsewhere, whatever path or query it is given after pairing).
#[test]
fn no_answer_may_be_framed_and_none_redirects() {
    let (_d, roots, _) = store_with_request();
    page_at(&roots, None);
    let cases = [
        ("GET", "/"),
        ("GET", "/app.js"),
        ("GET", "/sw.js"),
        ("GET", "//evil.example/"),
        ("GET", "/\\evil.example"),
        ("GET", "/?next=https://evil.example"),
        ("POST", "/api/pair?next=https://evil.example"),
        ("POST", "/api/pending"),
        ("PUT", "/"),
        ("OPTIONS", "/api/decide"),
    ];
    for (method, path) in cases {
        let r = server::respond_to(
            &roots,
            &server::Request {
                method: method.to_owned(),
                path: path.to_owned(),
                body: b"{}".to_vec(),
                ..Default::default()
            },
        );
        let head = server::head(&r);
        assert!(!r.status.starts_with('3'), "{method} {path}: {}", r.status);
        assert!(
            !head.to_ascii_lowercase().contains("\r\nlocation:"),
            "{head}"
        );
        assert!(head.contains("frame-ancestors 'none'"), "{head}");
        assert!(head.contains("X-Frame-Options: DENY"), "{head}");
        assert!(head.contains("Cache-Control: no-store"), "{head}");
        // No answer lets another site read it (no CORS header is ever sent).
        assert!(!head.contains("Access-Control-Allow"), "{head}");
    }
    // A refusal made before the request is answered (Tailscale's whois) has them too.
    let refused = server::Response {
        status: "403 Forbidden",
        content_type: "application/json",
        body: Vec::new(),
    };
    assert!(server::head(&refused).contains("frame-ancestors 'none'"));
}

/// One pairing link opened on two phones at the same instant (or sent twice by one): exactly
/// one device is paired, the other told the link is used.
#[test]
fn a_pairing_link_used_twice_at_once_pairs_one_device() {
    let (_d, roots, _) = store_with_request();
    let p = pair_start(&roots).unwrap();
    let phones: Vec<Phone> = (0..8).map(|_| Phone::new()).collect();
    let barrier = std::sync::Barrier::new(phones.len());
    let results: Vec<Result<Device, PhoneError>> = std::thread::scope(|s| {
        let handles: Vec<_> = phones
            .iter()
            .enumerate()
            .map(|(i, phone)| {
                let (roots, p, barrier) = (&roots, &p, &barrier);
                s.spawn(move || {
                    let req = PairRequest {
                        secret: p.secret.clone(),
                        name: format!("Phone {i}"),
                        public_key: phone.public(),
                        signature: phone.sign(&sign::canonical_pairing(&p.secret)),
                    };
                    barrier.wait();
                    pair_finish(roots, &req)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let paired = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(paired, 1, "{results:?}");
    for e in results.iter().filter_map(|r| r.as_ref().err()) {
        assert_eq!(e.kind(), "pairingUnknown", "{e}");
        assert!(e.to_string().contains("already used"), "{e}");
    }
    assert_eq!(devices(&roots).unwrap().len(), 1);
}

/// A revoked phone's key brought back with a new link: refused, saying it was revoked (its
/// decisions stay refused: the person makes a new key by pairing the phone afresh).
#[test]
fn a_revoked_devices_key_cannot_pair_again() {
    let (_d, roots, _) = store_with_request();
    let phone = Phone::new();
    phone.pair(&roots, "Pixel");
    revoke(&roots, "Pixel").unwrap();
    let p = pair_start(&roots).unwrap();
    let e = pair_finish(
        &roots,
        &PairRequest {
            secret: p.secret.clone(),
            name: "Pixel again".to_owned(),
            public_key: phone.public(),
            signature: phone.sign(&sign::canonical_pairing(&p.secret)),
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), "badInput", "{e}");
    assert!(
        e.to_string().contains("revoked") && e.to_string().contains("Pixel"),
        "{e}"
    );
    assert_eq!(devices(&roots).unwrap().len(), 1);
}
