//! The phone page's other machines (issue 37), over a real OpenSSH server on loopback (the kit of
//! `remote.rs`): the page's server keeps the machines of the settings connected as the window
//! does; a plan waiting there is listed on the page naming its machine, shown with its diff
//! against the version approved there and its comments there, and a phone's signed decision on
//! it goes through the window's remote call (decided there, the hook there answered). While the
//! machine is unreachable the page says so, its card is "unknown", and a decision is refused with
//! nothing sent.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Value};

use plandeck_core::config::{Env, Host, Roots};
use plandeck_core::elsewhere::{Elsewhere, MachineState};
use plandeck_core::machines::{Machines, Timing};
use plandeck_core::phone::{self, PairRequest, Signed, SignedDecision, Verdict};
use plandeck_testkit::{wait_for, wait_until};

use crate::remote::{run, run_hook, waiting_agent, Machines as Ssh, USER};

fn b64url(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// A phone's key, as WebCrypto makes one, paired with `roots`.
struct Phone {
    key: EcdsaKeyPair,
    device: String,
}

impl Phone {
    fn pair(roots: &Roots) -> Phone {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        let mut phone = Phone {
            key,
            device: String::new(),
        };
        let p = phone::pair_start(roots).unwrap();
        let d = phone::pair_finish(
            roots,
            &PairRequest {
                secret: p.secret.clone(),
                name: "Pixel".into(),
                public_key: Value::String(b64url(phone.key.public_key().as_ref())),
                signature: phone.sign(&phone::sign::canonical_pairing(&p.secret)),
            },
        )
        .unwrap();
        phone.device = d.id;
        phone
    }

    fn sign(&self, message: &str) -> String {
        let sig = self
            .key
            .sign(&SystemRandom::new(), message.as_bytes())
            .unwrap();
        b64url(sig.as_ref())
    }

    fn decision(&self, id: &str, hash: &str, verdict: Verdict, feedback: &str) -> SignedDecision {
        let mut n = [0u8; 18];
        ring::rand::SecureRandom::fill(&SystemRandom::new(), &mut n).unwrap();
        let nonce = b64url(&n);
        let expires = plandeck_core::timestamp::now().unix_timestamp() + 60;
        let msg = phone::canonical_decision(id, hash, verdict, feedback, &nonce, expires).unwrap();
        SignedDecision {
            request_id: id.to_owned(),
            plan_hash: hash.to_owned(),
            decision: verdict,
            feedback: feedback.to_owned(),
            signed: Signed {
                device: self.device.clone(),
                nonce,
                expires,
                signature: self.sign(&msg),
            },
        }
    }
}

fn quick() -> Timing {
    Timing {
        first_retry: Duration::from_millis(200),
        max_retry: Duration::from_secs(1),
        listing_patience: Duration::from_secs(20),
        tick: Duration::from_millis(50),
        call_patience: Duration::from_secs(60),
    }
}

/// Writes `text` to the remote's plan file as its user would.
fn write_remote(m: &Ssh, text: &str) {
    let path = m.remote.join(".claude/plans/p.md");
    std::fs::write(&path, text).unwrap();
    run(Command::new("chown").arg(format!("{USER}:")).arg(&path));
}

#[test]
fn a_plan_waiting_on_a_machine_is_on_the_page_with_its_diff_and_comments_and_decided_there() {
    let mut m = Ssh::new(true);
    m.start_sshd();
    m.add_box();
    let agent = waiting_agent(&m);
    let plan = agent["tool_input"]["plan"].as_str().unwrap().to_owned();
    let remote_plan = m.remote.join(".claude/plans/p.md");
    // Named by its id there (a machine's plans are named by id, never by path).
    let remote_plan = plandeck_core::ids::plan_id(&remote_plan);
    let remote_plan = remote_plan.as_str();
    // There, an earlier version was approved and a comment waits on the plan.
    write_remote(
        &m,
        &plan.replace("2. Return a cursor", "2. Return an offset"),
    );
    let (code, out, err) = m.plandeck(&["--host", "box", "approve", remote_plan]);
    assert_eq!(code, 0, "{out}{err}");
    write_remote(&m, &plan);
    let (code, out, err) = m.plandeck(&[
        "--host",
        "box",
        "comment",
        remote_plan,
        "--quote",
        "Write tests",
        "--text",
        "<i>Cover</i> the last page.",
    ]);
    assert_eq!(code, 0, "{out}{err}");

    // The page's server keeps the machines of the settings connected (as `attach_settings`
    // does, with the test's ssh).
    let roots = Roots::under_home(&m.local.path().canonicalize().unwrap());
    let host = Host {
        name: "box".into(),
        ssh: "plandeck-test".into(),
        forward_agent: false,
    };
    let env = Env::from_pairs([(
        "PLANDECK_SSH",
        format!("ssh -F {}", m.file("ssh_config").display()).as_str(),
    )]);
    let machines: Arc<Machines> = Arc::new(Machines::with_timing(
        vec![host],
        env,
        Arc::new(|_| {}),
        quick(),
    ));
    plandeck_core::phone_elsewhere::reach();
    let _shown = plandeck_core::phone_elsewhere::attach(&roots, machines.clone());
    wait_until("box connected", || {
        machines.statuses()[0].state == MachineState::Connected
    });
    let presence = m.remote_data().join("gate/app.json");
    wait_until("the remote server's presence", || presence.exists());
    let hook = run_hook(&m, &agent);
    let phone = Phone::pair(&roots);

    // The page's list: the card names the machine; the machine is connected.
    let card = wait_for("the remote request on the page", || {
        let (cards, _) = plandeck_core::phone_elsewhere::elsewhere_cards(&roots);
        cards
            .into_iter()
            .find(|c| c["id"].as_str().is_some_and(|i| i.starts_with("@box/")))
    });
    assert_eq!(card["machine"], json!("box"), "{card}");
    assert_eq!(card["agent"], json!("Claude Code"), "{card}");
    assert_eq!(card["known"], json!(true), "{card}");
    let (_, statuses) = plandeck_core::phone_elsewhere::elsewhere_cards(&roots);
    assert_eq!(statuses[0]["name"], json!("box"));
    assert_eq!(statuses[0]["state"], json!("connected"));
    let id = card["id"].as_str().unwrap().to_owned();
    let hash = card["planHash"].as_str().unwrap().to_owned();

    // The plan, rendered here, with its diff against the version approved there and its comment.
    let shown = plandeck_core::phone_elsewhere::plan_there(&roots, &id).unwrap();
    assert!(
        shown["html"].as_str().unwrap().contains("add pagination"),
        "{shown}"
    );
    assert_eq!(shown["machine"], json!("box"));
    assert_eq!(shown["diff"]["approvedBefore"], json!(true), "{shown}");
    let lines: Vec<(String, String)> = shown["diff"]["hunks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| h["lines"].as_array().unwrap().clone())
        .map(|l| {
            (
                l["kind"].as_str().unwrap().to_owned(),
                l["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        lines.contains(&("delete".into(), "2. Return an offset".into()))
            && lines.contains(&("insert".into(), "2. Return a cursor".into())),
        "{lines:?}"
    );
    let comment = &shown["comments"][0];
    assert_eq!(comment["quote"], json!("Write tests"), "{shown}");
    assert_eq!(comment["text"], json!("<i>Cover</i> the last page."));
    assert_eq!(comment["line"], json!(5));
    assert_eq!(comment["status"], json!("open"));

    // sshd goes: the machine is unreachable, its card (as it last said) "unknown", and a
    // decision refused with nothing sent; the hook there still waits.
    m.stop_sshd();
    wait_until("box unreachable", || {
        machines.statuses()[0].state == MachineState::Unreachable
    });
    let (cards, statuses) = plandeck_core::phone_elsewhere::elsewhere_cards(&roots);
    assert_eq!(statuses[0]["state"], json!("unreachable"), "{statuses:?}");
    let kept = cards.iter().find(|c| c["id"] == json!(id.clone()));
    assert!(
        kept.is_none_or(|c| c["known"] == json!(false)),
        "a card of an unreachable machine is never shown as known: {kept:?}"
    );
    let refused =
        phone::decide(&roots, &phone.decision(&id, &hash, Verdict::Approve, "")).unwrap_err();
    assert_eq!(refused.kind(), "unreachable", "{refused}");
    assert!(refused.to_string().contains("never queued"), "{refused}");
    // Nothing went: the hook there ends as nobody is connected to decide (the agent's own prompt
    // takes over), never with an approval; the log there holds the file's approval only.
    let first = hook.join().unwrap();
    assert!(
        !String::from_utf8_lossy(&first.stdout).contains("allow"),
        "{first:?}"
    );
    let log = std::fs::read_to_string(m.remote_data().join("decisions.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1, "nothing decided there: {log}");

    // Back: a plan waiting there again is decided by the phone's rejection, there, and the hook
    // there hands it to the agent.
    m.start_sshd();
    wait_until("box connected again", || {
        machines.statuses()[0].state == MachineState::Connected
    });
    wait_until("the remote server's presence again", || presence.exists());
    let hook = run_hook(&m, &agent);
    let card = wait_for("the second remote request on the page", || {
        let (cards, _) = plandeck_core::phone_elsewhere::elsewhere_cards(&roots);
        cards.into_iter().find(|c| {
            c["id"]
                .as_str()
                .is_some_and(|i| i.starts_with("@box/") && i != id)
                && c["known"] == json!(true)
        })
    });
    let id = card["id"].as_str().unwrap().to_owned();
    let hash = card["planHash"].as_str().unwrap().to_owned();
    let outcome = phone::decide(
        &roots,
        &phone.decision(&id, &hash, Verdict::Reject, "Use keyset pagination."),
    )
    .unwrap();
    assert_eq!(outcome.request_id, id);
    let done = hook.join().unwrap();
    let said = String::from_utf8_lossy(&done.stdout);
    assert!(
        said.contains("deny") && said.contains("Use keyset pagination."),
        "{said}"
    );
    let log = std::fs::read_to_string(m.remote_data().join("decisions.jsonl")).unwrap();
    assert!(
        log.contains("Use keyset pagination."),
        "decided there: {log}"
    );
    // The log there names the phone, relayed through this machine's ssh, not only "over SSH".
    let line: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    let by = line["decidedBy"].as_str().unwrap_or_default();
    assert!(
        by.starts_with("the phone \"Pixel\" (device ")
            && by.contains(") via ")
            && by.ends_with(", through plandeck serve (over SSH from 127.0.0.1)"),
        "{line}"
    );
    assert!(!roots.data.join("decisions.jsonl").exists(), "none here");
    drop(machines);
}
