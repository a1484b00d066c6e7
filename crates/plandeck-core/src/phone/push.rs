//! Web Push with no plan text (issue 37, item 5): when a request arrives, each paired device's push
//! subscription gets "Plan waiting: <project> · <agent> · <machine>" and the request's opaque id,
//! nothing of the plan.
//!
//! - **Subscriptions** ([`subscribe`]): the page subscribes with this Plandeck's VAPID key
//!   ([`super::vapid`]) and sends `{endpoint, p256dh, auth}` signed by its device key like a
//!   decision ([`canonical_subscription`]). One per device, kept in `<data>/phone/push.json`,
//!   dropped when the device is revoked ([`forget_locked`]) or the push service says it is gone
//!   (404, 410).
//! - **Encryption** ([`encrypt`]): RFC 8291 (ECDH P-256 with the subscription's key, HKDF with its
//!   auth secret) in the `aes128gcm` content coding of RFC 8188, one record; ring only.
//! - **Sending** ([`Notifier`]): over HTTPS to the endpoint ([`super::outbound`]: https only,
//!   bounded, no private address, no redirect, bounded time), with a VAPID token; and, when the
//!   person set one ([`set_ntfy`]), to their own ntfy topic (a view link only). At most
//!   [`MAX_PER_MINUTE`] messages a minute in all; more are dropped and logged.
//! - **Watching** ([`watch`]): the phone server notices each request filed from then on, woken by
//!   the gate's folder's watch (the one the live handle follows the gate with, [`crate::watch`];
//!   a look every [`WATCH_FALLBACK`] only where no watch can be set) and notifies once per
//!   request; and each plan that starts waiting on another machine the page shows
//!   ([`watch_others`], asked every [`OTHERS_EVERY`]), its machine named.

use std::collections::{HashSet, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ring::rand::{SecureRandom, SystemRandom};
use serde::{Deserialize, Serialize};

use super::outbound::{self, Outbound, OutboundError};
use super::sign::unb64;
use super::vapid::Vapid;
use super::{PhoneError, Signed};
use crate::config::Roots;
use crate::gate::{GateRequest, GateStatus};

/// Messages sent at most in any minute (push and ntfy together); more are dropped.
pub const MAX_PER_MINUTE: usize = 12;
/// How long a push service keeps a message for a phone that is off (seconds).
pub const TTL_SECONDS: u32 = 15 * 60;
/// How long a burst of the gate folder's changes is held before the server looks (the live
/// handle's own for the gate).
pub const WATCH_DEBOUNCE: Duration = Duration::from_millis(30);
/// How often the server looks for new requests where the gate's folder cannot be watched.
pub const WATCH_FALLBACK: Duration = Duration::from_millis(500);
/// How often the watching thread looks whether it is to stop.
const STOP_CHECK: Duration = Duration::from_millis(250);
/// The record size announced in the message's header (RFC 8188); a message is one record.
const RECORD_SIZE: u32 = 4096;
/// The most characters of each outside word (project, machine) a notification shows.
const WORD_CHARS: usize = 48;

/// A device's push subscription, as the page's `PushSubscription` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    pub device: String,
    pub endpoint: String,
    /// The subscription's public key (uncompressed P-256 point, base64url).
    pub p256dh: String,
    /// Its auth secret (16 bytes, base64url).
    pub auth: String,
    pub added: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PushFile {
    subscriptions: Vec<Subscription>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NotifyFile {
    ntfy: Option<String>,
}

/// What the page sends to subscribe (or, with an empty endpoint, to unsubscribe).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignedSubscription {
    pub endpoint: String,
    #[serde(default)]
    pub p256dh: String,
    #[serde(default)]
    pub auth: String,
    #[serde(flatten)]
    pub signed: Signed,
}

fn bad(message: impl Into<String>) -> PhoneError {
    PhoneError::BadInput {
        message: message.into(),
    }
}

/// What a phone signs to subscribe: the endpoint's SHA-256 (hex; an endpoint may be long), the
/// subscription's key and auth secret, the nonce and the expiry.
pub fn canonical_subscription(
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    nonce: &str,
    expires: i64,
) -> Result<String, PhoneError> {
    for (name, v) in [
        ("the key", p256dh),
        ("the auth secret", auth),
        ("the nonce", nonce),
    ] {
        if v.contains(['\n', '\r']) || v.len() > 256 {
            return Err(bad(format!("{name} holds a line break or is too long")));
        }
    }
    Ok(format!(
        "plandeck-push-v1\n{}\n{p256dh}\n{auth}\n{nonce}\n{expires}",
        crate::durable::sha256_hex(endpoint.as_bytes())
    ))
}

/// Checks a subscription's key (a P-256 point a key agreement accepts) and auth secret (16 bytes).
fn check_keys(p256dh: &str, auth: &str) -> Result<(), PhoneError> {
    let key = unb64(p256dh).map_err(|_| bad("the subscription's key is not base64url"))?;
    let rng = SystemRandom::new();
    let mine = ring::agreement::EphemeralPrivateKey::generate(&ring::agreement::ECDH_P256, &rng)
        .map_err(|_| bad("the system gave no random bytes"))?;
    ring::agreement::agree_ephemeral(
        mine,
        &ring::agreement::UnparsedPublicKey::new(&ring::agreement::ECDH_P256, &key),
        |_| (),
    )
    .map_err(|_| bad("the subscription's key is not a P-256 public key"))?;
    let auth = unb64(auth).map_err(|_| bad("the auth secret is not base64url"))?;
    if auth.len() != 16 {
        return Err(bad("the auth secret is 16 bytes"));
    }
    Ok(())
}

/// Whether the device subscribed, or unsubscribed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Subscribed {
    Subscribed,
    Unsubscribed,
}

/// Keeps (or, with an empty endpoint, drops) the signing device's subscription: the call is
/// checked as every signed call is ([`super::verify`]), the endpoint must be one this server may
/// call ([`outbound::parse_https`]), the keys well formed. A device has one subscription; a new one
/// replaces it.
pub fn subscribe(roots: &Roots, s: &SignedSubscription) -> Result<Subscribed, PhoneError> {
    let unsubscribe = s.endpoint.is_empty();
    if !unsubscribe {
        outbound::parse_https(&s.endpoint)?;
        check_keys(&s.p256dh, &s.auth)?;
    }
    let message = canonical_subscription(
        &s.endpoint,
        &s.p256dh,
        &s.auth,
        &s.signed.nonce,
        s.signed.expires,
    )?;
    let device = super::verify(roots, &s.signed, message.as_bytes())?;
    let _lock = super::lock(roots)?;
    let mut file: PushFile = super::read(roots, "push.json")?;
    file.subscriptions.retain(|x| x.device != device.id);
    if !unsubscribe {
        file.subscriptions.push(Subscription {
            device: device.id.clone(),
            endpoint: s.endpoint.clone(),
            p256dh: s.p256dh.clone(),
            auth: s.auth.clone(),
            added: crate::timestamp::format(crate::timestamp::now_seconds()),
        });
    }
    super::write(roots, "push.json", &file)?;
    Ok(if unsubscribe {
        Subscribed::Unsubscribed
    } else {
        Subscribed::Subscribed
    })
}

/// Drops `device`'s subscription; the caller holds the phone store's lock (revoking does).
pub(crate) fn forget_locked(roots: &Roots, device: &str) -> Result<(), PhoneError> {
    let mut file: PushFile = super::read(roots, "push.json")?;
    let before = file.subscriptions.len();
    file.subscriptions.retain(|x| x.device != device);
    if file.subscriptions.len() != before {
        super::write(roots, "push.json", &file)?;
    }
    Ok(())
}

fn forget_endpoint(roots: &Roots, endpoint: &str) -> Result<(), PhoneError> {
    let _lock = super::lock(roots)?;
    let mut file: PushFile = super::read(roots, "push.json")?;
    file.subscriptions.retain(|x| x.endpoint != endpoint);
    super::write(roots, "push.json", &file)
}

/// The subscriptions of the devices paired and not revoked.
pub fn subscriptions(roots: &Roots) -> Result<Vec<Subscription>, PhoneError> {
    let devices = super::devices(roots)?;
    let file: PushFile = super::read(roots, "push.json")?;
    Ok(file
        .subscriptions
        .into_iter()
        .filter(|s| devices.iter().any(|d| d.id == s.device && !d.revoked))
        .collect())
}

/// The person's own ntfy topic URL, when set.
pub fn ntfy(roots: &Roots) -> Result<Option<String>, PhoneError> {
    Ok(super::read::<NotifyFile>(roots, "notify.json")?.ntfy)
}

/// Sets (or, with `None`, removes) the ntfy topic URL: an https address this server may call.
pub fn set_ntfy(roots: &Roots, url: Option<&str>) -> Result<(), PhoneError> {
    if let Some(u) = url {
        outbound::parse_https(u)?;
    }
    let _lock = super::lock(roots)?;
    super::write(
        roots,
        "notify.json",
        &NotifyFile {
            ntfy: url.map(str::to_owned),
        },
    )
}

/// A length for ring's HKDF.
struct Len(usize);

impl ring::hkdf::KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

fn hkdf_expand(prk: &ring::hkdf::Prk, info: &[u8], out: &mut [u8]) -> Result<(), PhoneError> {
    prk.expand(&[info], Len(out.len()))
        .and_then(|okm| okm.fill(out))
        .map_err(|_| bad("key derivation failed"))
}

/// The keys of one message (RFC 8291 §3.4, RFC 8188 §2.2): from the ECDH secret, the auth
/// secret, both public keys and the salt, the content key and the nonce.
pub(crate) fn message_keys(
    ecdh_secret: &[u8],
    auth: &[u8],
    ua_public: &[u8],
    as_public: &[u8],
    salt: &[u8],
) -> Result<([u8; 16], [u8; 12]), PhoneError> {
    use ring::hkdf::{Salt, HKDF_SHA256};
    let prk_key = Salt::new(HKDF_SHA256, auth).extract(ecdh_secret);
    let mut key_info = b"WebPush: info\0".to_vec();
    key_info.extend_from_slice(ua_public);
    key_info.extend_from_slice(as_public);
    let mut ikm = [0u8; 32];
    hkdf_expand(&prk_key, &key_info, &mut ikm)?;
    let prk = Salt::new(HKDF_SHA256, salt).extract(&ikm);
    let mut cek = [0u8; 16];
    hkdf_expand(&prk, b"Content-Encoding: aes128gcm\0", &mut cek)?;
    let mut nonce = [0u8; 12];
    hkdf_expand(&prk, b"Content-Encoding: nonce\0", &mut nonce)?;
    Ok((cek, nonce))
}

/// Encrypts `plaintext` for the subscription whose key is `ua_public` and auth secret `auth`
/// (RFC 8291): an `aes128gcm` body (RFC 8188) of one record, with a fresh key and salt.
pub fn encrypt(plaintext: &[u8], ua_public: &[u8], auth: &[u8]) -> Result<Vec<u8>, PhoneError> {
    let rng = SystemRandom::new();
    let mut salt = [0u8; 16];
    rng.fill(&mut salt)
        .map_err(|_| bad("the system gave no random bytes"))?;
    encrypt_with(plaintext, ua_public, auth, &rng, salt)
}

/// [`encrypt`] with the sender's key drawn from `rng` and the salt given (RFC 8291's example).
pub(crate) fn encrypt_with(
    plaintext: &[u8],
    ua_public: &[u8],
    auth: &[u8],
    rng: &dyn SecureRandom,
    salt: [u8; 16],
) -> Result<Vec<u8>, PhoneError> {
    use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM};
    use ring::agreement::{agree_ephemeral, EphemeralPrivateKey, UnparsedPublicKey, ECDH_P256};
    // One record: the text, its delimiter (2: the last record) and the 16-byte tag must fit.
    if plaintext.len() + 1 + 16 > RECORD_SIZE as usize {
        return Err(bad("a push message is at most about 4 KB"));
    }
    let mine = EphemeralPrivateKey::generate(&ECDH_P256, rng)
        .map_err(|_| bad("cannot make the message's key"))?;
    let as_public = mine
        .compute_public_key()
        .map_err(|_| bad("cannot make the message's key"))?;
    let as_public = as_public.as_ref().to_vec();
    let (cek, nonce) = agree_ephemeral(mine, &UnparsedPublicKey::new(&ECDH_P256, ua_public), |s| {
        message_keys(s, auth, ua_public, &as_public, &salt)
    })
    .map_err(|_| bad("the subscription's key is not a P-256 public key"))??;
    let key = LessSafeKey::new(
        UnboundKey::new(&AES_128_GCM, &cek).map_err(|_| bad("cannot make the content key"))?,
    );
    let mut record = plaintext.to_vec();
    record.push(2);
    key.seal_in_place_append_tag(
        Nonce::assume_unique_for_key(nonce),
        Aad::empty(),
        &mut record,
    )
    .map_err(|_| bad("cannot encrypt the message"))?;
    let mut body = Vec::with_capacity(16 + 4 + 1 + 65 + record.len());
    body.extend_from_slice(&salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(as_public.len() as u8);
    body.extend_from_slice(&as_public);
    body.extend_from_slice(&record);
    Ok(body)
}

/// Outside words as a notification shows them: one line, invisible characters marked, at most
/// `max` characters (then `…`). No markup is read by a web notification: nothing escaped.
fn word(text: &str, max: usize) -> String {
    let one_line: String = text
        .chars()
        .map(|c| {
            if c.is_control() || c.is_whitespace() {
                ' '
            } else {
                c
            }
        })
        .collect();
    let shown = crate::visible::shown(one_line.trim());
    let mut out: String = shown.chars().take(max).collect();
    if shown.chars().count() > max {
        out.push('…');
    }
    out
}

/// What a phone is told of a request: its title and the request's opaque id. Nothing of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    pub title: String,
    pub id: String,
}

impl Notice {
    pub fn of(req: &GateRequest) -> Notice {
        let project = Path::new(&req.cwd)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| req.cwd.clone());
        let machine = req.machine.clone().unwrap_or_else(super::server::machine);
        Notice {
            title: format!(
                "Plan waiting: {} · {} · {}",
                word(&project, WORD_CHARS),
                req.agent.display_name(),
                word(&machine, WORD_CHARS)
            ),
            id: req.id.clone(),
        }
    }
}

/// At most [`MAX_PER_MINUTE`] messages in any 60 seconds.
#[derive(Debug, Default)]
pub struct Cap {
    sent: VecDeque<Instant>,
}

impl Cap {
    /// Whether one more message may go at `now` (and counts it if so).
    pub fn take(&mut self, now: Instant) -> bool {
        while self
            .sent
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= Duration::from_secs(60))
        {
            self.sent.pop_front();
        }
        if self.sent.len() >= MAX_PER_MINUTE {
            return false;
        }
        self.sent.push_back(now);
        true
    }
}

/// Where one message went and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// The device id, or `ntfy`.
    pub to: String,
    /// The push service's status, or why it did not go (`capped` when over the cap).
    pub result: Result<u16, String>,
}

/// Sends the notices: VAPID key, the outbound policy, and the cap.
#[derive(Debug)]
pub struct Notifier {
    roots: Roots,
    outbound: Outbound,
    vapid: Vapid,
    cap: Mutex<Cap>,
}

impl Notifier {
    pub fn new(roots: &Roots, outbound: Outbound) -> Result<Notifier, PhoneError> {
        Ok(Notifier {
            roots: roots.clone(),
            outbound,
            vapid: Vapid::load_or_make(roots)?,
            cap: Mutex::new(Cap::default()),
        })
    }

    fn take(&self) -> bool {
        self.cap
            .lock()
            .map(|mut c| c.take(Instant::now()))
            .unwrap_or(false)
    }

    /// Tells every subscribed device (and the ntfy topic, when set) that `req` waits; each message
    /// goes on its own thread, all within [`outbound::DEADLINE`]. Returns how each went.
    pub fn notify(&self, req: &GateRequest) -> Vec<Sent> {
        let notice = Notice::of(req);
        let payload = serde_json::to_vec(&notice).unwrap_or_default();
        let subs = match subscriptions(&self.roots) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("push: cannot read the subscriptions: {e}");
                Vec::new()
            }
        };
        let ntfy = ntfy(&self.roots).ok().flatten();
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for sub in &subs {
                if !self.take() {
                    handles.push(scope.spawn(move || Sent {
                        to: sub.device.clone(),
                        result: Err("capped".to_owned()),
                    }));
                    continue;
                }
                let payload = &payload;
                handles.push(scope.spawn(move || Sent {
                    to: sub.device.clone(),
                    result: self.push_one(sub, payload).map_err(|e| e.to_string()),
                }));
            }
            if let Some(url) = &ntfy {
                let capped = !self.take();
                handles.push(scope.spawn(move || Sent {
                    to: "ntfy".to_owned(),
                    result: if capped {
                        Err("capped".to_owned())
                    } else {
                        self.ntfy_one(url).map_err(|e| e.to_string())
                    },
                }));
            }
            let out: Vec<Sent> = handles.into_iter().filter_map(|h| h.join().ok()).collect();
            for s in &out {
                match &s.result {
                    Ok(code) => tracing::info!("push for {} to {}: {code}", req.id, s.to),
                    Err(e) => tracing::warn!("push for {} to {}: {e}", req.id, s.to),
                }
            }
            out
        })
    }

    fn push_one(&self, sub: &Subscription, payload: &[u8]) -> Result<u16, PhoneError> {
        let url = outbound::parse_https(&sub.endpoint)?;
        let body = encrypt(payload, &unb64(&sub.p256dh)?, &unb64(&sub.auth)?)?;
        let exp = crate::timestamp::now_seconds() + super::vapid::TOKEN_VALID;
        let auth = self
            .vapid
            .authorization(&url.origin(), exp.unix_timestamp())?;
        let status = self.outbound.post(
            &url,
            &[
                ("Authorization", auth),
                ("TTL", TTL_SECONDS.to_string()),
                ("Urgency", "high".to_owned()),
                ("Content-Encoding", "aes128gcm".to_owned()),
                ("Content-Type", "application/octet-stream".to_owned()),
            ],
            &body,
        )?;
        match status {
            200..=299 => Ok(status),
            // The subscription is gone (the phone unsubscribed, the app was removed).
            404 | 410 => {
                forget_endpoint(&self.roots, &sub.endpoint)?;
                Err(bad(format!(
                    "the push service says the subscription is gone ({status}); dropped"
                )))
            }
            _ => Err(bad(format!("the push service answered {status}"))),
        }
    }

    /// A view link only: "A plan is waiting", and the page's address to open.
    fn ntfy_one(&self, url: &str) -> Result<u16, PhoneError> {
        let url = outbound::parse_https(url)?;
        let mut headers = vec![("Title", "Plandeck".to_owned())];
        if let Some(link) = super::server::read_config(&self.roots)?
            .and_then(|c| c.base_url().ok())
            .filter(|l| !l.contains(['\r', '\n']))
        {
            headers.push(("Click", link));
        }
        let status = self
            .outbound
            .post(&url, &headers, b"A plan is waiting in Plandeck.")?;
        match status {
            200..=299 => Ok(status),
            _ => Err(OutboundError::Failed(format!("ntfy answered {status}")).into()),
        }
    }
}

/// The ids of the request files in the gate's folder.
fn request_ids(roots: &Roots) -> HashSet<String> {
    let Ok(entries) = std::fs::read_dir(crate::gate::store::requests_dir(roots)) else {
        return HashSet::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_owned)
        })
        .collect()
}

/// Notices each request filed from now on (those waiting already were told, or are old) and
/// notifies it once, on a thread of its own, until `stop` is set.
pub fn watch(notifier: Arc<Notifier>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    let roots = notifier.roots.clone();
    // The gate's folder, watched as the live handle watches it: each burst of changes wakes the
    // thread once. Armed before the requests there now are read, so none filed after is missed.
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let watcher = crate::watch::watch(vec![roots.data.join("gate")], WATCH_DEBOUNCE, move |_| {
        let _ = tx.send(());
    });
    let watcher = match watcher {
        Ok(w) => Some(w),
        Err(e) => {
            tracing::warn!(
                "push: the gate's folder is not watched ({e}); looking every {} ms",
                WATCH_FALLBACK.as_millis()
            );
            None
        }
    };
    let mut known = request_ids(&roots);
    std::thread::spawn(move || {
        let _watcher = watcher;
        let watched = _watcher.is_some();
        while !stop.load(Ordering::SeqCst) {
            if watched {
                match rx.recv_timeout(STOP_CHECK) {
                    Ok(()) => while rx.try_recv().is_ok() {},
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                }
            } else {
                std::thread::sleep(WATCH_FALLBACK);
            }
            let now = request_ids(&roots);
            for id in now.difference(&known) {
                let path = crate::gate::store::requests_dir(&roots).join(format!("{id}.json"));
                let req = match crate::gate::store::read_request(&path) {
                    Ok(Some(r)) if r.status == GateStatus::Waiting => r,
                    Ok(_) => continue,
                    Err(e) => {
                        tracing::debug!("push: {e}");
                        continue;
                    }
                };
                let n = notifier.clone();
                std::thread::spawn(move || {
                    n.notify(&req);
                });
            }
            // Closed requests leave the set with their files; an id is never reused.
            known = now;
        }
    })
}

/// How often the phone server asks the other machines which plans wait there (to push new ones).
pub const OTHERS_EVERY: Duration = Duration::from_secs(1);
/// The most ids of other machines' requests remembered as told (the oldest forgotten first).
const OTHERS_KNOWN: usize = 10_000;

/// The plans waiting now on each other machine that answered now: its name and its requests
/// (ids `@machine/…`, each naming its machine).
pub type Waiting = Vec<(String, Vec<GateRequest>)>;

/// Notices each plan that starts waiting on another machine (`waiting`, asked every `every`)
/// and notifies it once, as [`watch`] does here: "Plan waiting: <project> · <agent> · <machine>",
/// the opaque id, nothing of the plan. A machine's plans waiting when it is first heard from were
/// waiting before (as those here when the server starts): not pushed; nor again when a machine
/// comes back after a drop. Permission requests are not pushed (the page shows plans only).
pub fn watch_others(
    notifier: Arc<Notifier>,
    waiting: Box<dyn Fn() -> Waiting + Send>,
    every: Duration,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut heard: HashSet<String> = HashSet::new();
        let mut known: HashSet<String> = HashSet::new();
        let mut order: VecDeque<String> = VecDeque::new();
        while !stop.load(Ordering::SeqCst) {
            for (machine, requests) in waiting() {
                let first = heard.insert(machine);
                for req in requests {
                    if known.contains(&req.id) {
                        continue;
                    }
                    known.insert(req.id.clone());
                    order.push_back(req.id.clone());
                    if order.len() > OTHERS_KNOWN {
                        if let Some(old) = order.pop_front() {
                            known.remove(&old);
                        }
                    }
                    let plan = req.kind == crate::gate::RequestKind::Plan
                        && req.status == GateStatus::Waiting;
                    if first || !plan {
                        continue;
                    }
                    let n = notifier.clone();
                    std::thread::spawn(move || {
                        n.notify(&req);
                    });
                }
            }
            let until = Instant::now() + every;
            while Instant::now() < until && !stop.load(Ordering::SeqCst) {
                std::thread::sleep(STOP_CHECK.min(every));
            }
        }
    })
}

/// A response of the page's push routes: status, type, body.
pub type Reply = (&'static str, &'static str, Vec<u8>);

const MANIFEST: &str = include_str!("page/manifest.webmanifest");
const WORKER: &str = include_str!("page/sw.js");
const ICON: &str = include_str!("page/icon.svg");

fn reply_json(status: &'static str, value: &serde_json::Value) -> Reply {
    (status, "application/json", value.to_string().into_bytes())
}

fn refused(e: &PhoneError) -> Reply {
    let status = match e {
        PhoneError::Write(_) | PhoneError::Read { .. } => "500 Internal Server Error",
        PhoneError::BadInput { .. } | PhoneError::BadKey { .. } => "400 Bad Request",
        _ => "403 Forbidden",
    };
    reply_json(
        status,
        &serde_json::json!({"error": {"kind": e.kind(), "message": e.to_string()}}),
    )
}

/// The page's push and install routes: the manifest, the service worker, the icon, the VAPID
/// key, and subscribing. `None` for any other path.
pub fn route(roots: &Roots, method: &str, path: &str, body: &[u8]) -> Option<Reply> {
    let file = |ty: &'static str, text: &str| Some(("200 OK", ty, text.as_bytes().to_vec()));
    match (method, path) {
        ("GET", "/manifest.webmanifest") => file("application/manifest+json", MANIFEST),
        ("GET", "/sw.js") => file("text/javascript; charset=utf-8", WORKER),
        ("GET", "/icon.svg") => file("image/svg+xml", ICON),
        ("GET", "/api/push/key") => Some(match Vapid::load_or_make(roots) {
            Ok(v) => reply_json("200 OK", &serde_json::json!({"key": v.public_b64()})),
            Err(e) => refused(&e),
        }),
        ("POST", "/api/push/subscribe") => Some(
            match serde_json::from_slice::<SignedSubscription>(body)
                .map_err(|e| bad(format!("not the call the page sends: {e}")))
                .and_then(|s| subscribe(roots, &s))
            {
                Ok(s) => reply_json("200 OK", &serde_json::json!({"push": s})),
                Err(e) => refused(&e),
            },
        ),
        _ => None,
    }
}

#[cfg(test)]
#[path = "push_tests.rs"]
mod tests;
