//! Issue 37's "hook to push sent p95 < 1 s": a real Claude Code hook (`gate::hook_claude`, in a
//! thread) files a plan request; the phone server's watcher (`phone::push::watch`, started fresh
//! each run, so each run has the cap's full minute) notices it, encrypts the notice (RFC 8291) for
//! the paired device's subscription, signs a VAPID token and POSTs it over HTTPS to a push service
//! on loopback (a test CA made with openssl). The figure: hook started → the push service has the
//! whole message. Baseline: one bare HTTPS POST of the same size to the same service (new
//! connection, TLS handshake, answer), the floor of any push.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use plandeck_benches::{median, ms, percentile, report, Limit};
use plandeck_core::config::Roots;
use plandeck_core::gate::{self, GateDecision, HookOptions};
use plandeck_core::phone::outbound::{self, Outbound};
use plandeck_core::phone::{push, sign, PairRequest, Signed};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};

const N: usize = 30;

fn b64(bytes: &[u8]) -> String {
    // base64url without padding, as the page sends keys.
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (*b as u32) << (16 - 8 * i));
        for i in 0..=c.len() {
            out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// A push service on loopback HTTPS: answers 201 and sends when it had each whole message.
fn push_service(dir: &Path) -> (u16, mpsc::Receiver<Instant>) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(dir.join("server.pem"))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(dir.join("server.key")).unwrap();
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = stream.set_nodelay(true);
            let conn = rustls::ServerConnection::new(config.clone()).unwrap();
            let mut tls = rustls::StreamOwned::new(conn, stream);
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let whole = loop {
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
                    let len: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    if buf.len() >= i + 4 + len {
                        break true;
                    }
                }
                match tls.read(&mut chunk) {
                    Ok(0) | Err(_) => break false,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            };
            if whole {
                let at = Instant::now();
                let _ = tls.write_all(
                    b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
                let _ = tls.flush();
                let _ = tx.send(at);
            }
        }
    });
    (port, rx)
}

/// A paired phone subscribed at `endpoint`, as the page does it (its key signs each call).
fn phone_subscribed(roots: &Roots, endpoint: &str) {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let key =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let p = plandeck_core::phone::pair_start(roots).unwrap();
    let sig = key
        .sign(&rng, sign::canonical_pairing(&p.secret).as_bytes())
        .unwrap();
    let device = plandeck_core::phone::pair_finish(
        roots,
        &PairRequest {
            secret: p.secret,
            name: "Pixel".into(),
            public_key: serde_json::Value::String(b64(key.public_key().as_ref())),
            signature: b64(sig.as_ref()),
        },
    )
    .unwrap();
    let sub_key =
        ring::agreement::EphemeralPrivateKey::generate(&ring::agreement::ECDH_P256, &rng).unwrap();
    let p256dh = b64(sub_key.compute_public_key().unwrap().as_ref());
    let mut auth = [0u8; 16];
    rng.fill(&mut auth).unwrap();
    let auth = b64(&auth);
    let mut nonce = [0u8; 18];
    rng.fill(&mut nonce).unwrap();
    let nonce = b64(&nonce);
    let expires = time::OffsetDateTime::now_utc().unix_timestamp() + 60;
    let msg = push::canonical_subscription(endpoint, &p256dh, &auth, &nonce, expires).unwrap();
    let signature = b64(key.sign(&rng, msg.as_bytes()).unwrap().as_ref());
    push::subscribe(
        roots,
        &push::SignedSubscription {
            endpoint: endpoint.to_owned(),
            p256dh,
            auth,
            signed: Signed {
                device: device.id,
                nonce,
                expires,
                signature,
            },
        },
    )
    .unwrap();
}

fn stdin_for(home: &Path, n: usize) -> Vec<u8> {
    let transcript = home.join(format!(".claude/projects/-w/push-{n}.jsonl"));
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let call = serde_json::json!({"type":"assistant","message":{"content":[
        {"type":"tool_use","id":format!("toolu_{n}"),"name":"ExitPlanMode","input":{"plan":"# p\n"}}]}});
    std::fs::write(&transcript, format!("{call}\n")).unwrap();
    serde_json::to_vec(&serde_json::json!({
        "session_id": format!("bench-{n}"), "transcript_path": transcript, "cwd": "/w/api",
        "hook_event_name": "PermissionRequest", "tool_name": "ExitPlanMode",
        "tool_input": {"plan": "# p\n", "planFilePath": home.join(".claude/plans/p.md")}
    }))
    .unwrap()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let certs = dir.path().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    plandeck_testkit::tls::test_ca(&certs);
    let roots = Roots::under_home(&home);
    // The hook waits while a reviewer is there (the window here; the phone, once hooks wait for it).
    let _app = gate::app_heartbeat(&roots).unwrap();
    let (port, received) = push_service(&certs);
    let endpoint = format!("https://127.0.0.1:{port}/push/v2/bench");
    phone_subscribed(&roots, &endpoint);
    let outbound = Outbound::for_test(&std::fs::read(certs.join("ca.pem")).unwrap()).unwrap();

    // Baseline: a bare HTTPS POST of a push's size to the same service.
    let url = outbound::parse_https(&endpoint).unwrap();
    let body = vec![0u8; 200];
    let bare: Vec<Duration> = (0..N)
        .map(|_| {
            let t = Instant::now();
            assert_eq!(outbound.post(&url, &[], &body).unwrap(), 201);
            received.recv_timeout(Duration::from_secs(10)).unwrap();
            t.elapsed()
        })
        .collect();

    let mut samples = Vec::new();
    for n in 0..N {
        let notifier = Arc::new(push::Notifier::new(&roots, outbound.clone()).unwrap());
        let stop = Arc::new(AtomicBool::new(false));
        let watcher = push::watch(notifier, stop.clone());
        let (r, s) = (roots.clone(), stdin_for(&home, n));
        let t0 = Instant::now();
        let hook = std::thread::spawn(move || {
            gate::hook_claude(
                &r,
                &s,
                HookOptions {
                    deadline: Duration::from_secs(60),
                    hook_pid: std::process::id(),
                    agent_pid: None,
                    tmux_env: None,
                },
            )
        });
        let at = received
            .recv_timeout(Duration::from_secs(10))
            .expect("the push arrives");
        samples.push(at - t0);
        stop.store(true, Ordering::SeqCst);
        watcher.join().unwrap();
        let id = gate::pending(&roots)
            .into_iter()
            .next()
            .expect("the request waits")
            .id;
        let path = roots.data.join("gate/decisions").join(format!("{id}.json"));
        let decision = serde_json::to_vec(&GateDecision::Reject {
            feedback: "no".into(),
        })
        .unwrap();
        plandeck_core::durable::write_atomic(&path, &decision).unwrap();
        assert!(hook.join().unwrap().stdout.contains("deny"));
    }
    report(
        "push_hook_to_push_received",
        ms(percentile(&samples, 95.0)),
        "p95 < 1 s (the row's figure is its p95)",
        Some(("one bare HTTPS POST to the push service", ms(median(&bare)))),
        Limit::max(1000.0),
        serde_json::json!({"p50_ms": ms(median(&samples)), "n": N, "mode": "in-process hook and watcher, loopback HTTPS push service"}),
    );
    plandeck_benches::finish();
}
