//! Deciding from a phone (issue 37): a device paired once with a one-time secret, and every
//! decision it sends signed by its own key and bound to the plan it showed.
//!
//! - **Pairing** ([`pair_start`], [`pair_finish`]): a random secret, valid for minutes, stored only
//!   as its SHA-256 and consumed on first use. The phone makes its device key there (ECDSA P-256,
//!   WebCrypto, not extractable) and proves it holds it by signing the secret; where its browser
//!   offers passkeys, it also makes one with user verification ([`webauthn`]), and each of its
//!   decisions then needs that passkey's assertion of the decision.
//! - **Devices** ([`devices`], [`revoke`]): name, public key, when paired, last seen, revoked. A
//!   revoked device is kept (its decisions in the log name it) and refused from then on.
//! - **Signed calls** ([`sign`]): every call of the page (listing, one plan, a decision) carries
//!   the device, a nonce, an expiry and an ECDSA signature over canonical bytes; [`verify`] checks
//!   the device is known and not revoked, the signature, the time, and that the nonce was never
//!   used (kept until it expires).
//! - **Tailscale** ([`tailscale`]): served on the machine's tailnet address, every caller is
//!   checked by whois (the machine's own user's devices only).
//! - **Decisions** ([`decide`]): the signed `{request id, plan hash, decision, feedback hash,
//!   nonce, expiry}` is checked, then decided through the same claim as the window and the CLI
//!   ([`crate::gate::decide_with`]), with the plan hash as the version read: a plan changed since
//!   is refused. The log names the device.
//!
//! Everything is kept in `<data>/phone/` (0700), each file written atomically under one lock.

pub mod outbound;
pub mod push;
pub mod queue;
pub mod server;
pub mod settings;
pub mod sign;
pub mod tailscale;
#[cfg(test)]
mod tests;
pub mod vapid;
pub mod webauthn;

use std::fs;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::config::Roots;
use crate::durable;
use crate::gate::{self, ApproveMode, DecisionOutcome, DeliveryOptions, GateDecision, GateError};

pub use sign::{canonical_decision, canonical_read, Verdict};

/// How long a pairing link is valid.
pub const PAIRING_VALID: time::Duration = time::Duration::minutes(10);
/// The furthest ahead a signed call may expire: a signature is good for minutes, never longer.
pub const MAX_EXPIRY: time::Duration = time::Duration::minutes(5);
/// A device's name: at most this many characters.
pub const MAX_NAME: usize = 64;
/// Feedback or a note from the phone: at most this many bytes (as the terminal's limit).
pub const MAX_FEEDBACK: usize = 16 * 1024;

/// The other machines' part of the page: their waiting plans, a plan of theirs, a decision sent
/// there. It stands above the phone in the layers (it needs the deck and the machines), so the
/// server hosting the page hands it over ([`reach_other_machines`], `crate::phone_elsewhere`);
/// with none handed, the page shows this machine only.
pub trait OtherMachines: Send + Sync {
    /// Keeps the settings' machines connected while the guard lives.
    fn attach_settings(&self, roots: &Roots) -> Box<dyn FollowSettings>;
    /// Whether `id` names another machine's request (`@box/…`).
    fn owns(&self, id: &str) -> bool;
    /// Their waiting plans as cards, and how each machine is.
    fn cards(&self, roots: &Roots) -> (Vec<serde_json::Value>, Vec<serde_json::Value>);
    /// The plans waiting now on each of them that answered now (to push the new ones).
    fn waiting(&self, roots: &Roots) -> push::Waiting;
    /// One of their plans as the page shows it.
    fn plan(&self, roots: &Roots, id: &str) -> Result<serde_json::Value, PhoneError>;
    /// A checked decision sent there.
    fn decide(
        &self,
        roots: &Roots,
        d: &SignedDecision,
        device: &Device,
    ) -> Result<DecisionOutcome, PhoneError>;
}

/// The machines a page shows, kept as the settings say (see [`OtherMachines::attach_settings`]).
pub trait FollowSettings: Send {
    /// The machines added or removed in the settings since: connected or dropped.
    fn follow(&self, roots: &Roots);
}

static OTHER_MACHINES: std::sync::OnceLock<&'static dyn OtherMachines> = std::sync::OnceLock::new();

/// Hands the phone its way to the other machines (once per process; later calls change nothing).
pub fn reach_other_machines(other: &'static dyn OtherMachines) {
    let _ = OTHER_MACHINES.set(other);
}

/// The way to the other machines, where one was handed.
pub fn other_machines() -> Option<&'static dyn OtherMachines> {
    OTHER_MACHINES.get().copied()
}
/// Nonces kept at once (expired ones are dropped first); more signed calls are refused.
const MAX_NONCES: usize = 100_000;

/// Why a call from the phone was refused (nothing was decided).
#[derive(Debug, thiserror::Error)]
pub enum PhoneError {
    #[error("no paired device {device}: pair this phone again")]
    NoDevice { device: String },
    #[error("the device \"{name}\" was revoked; nothing was decided")]
    Revoked { name: String },
    #[error("the signature is not the device's own (another key, or the call was changed); nothing was decided")]
    BadSignature,
    #[error("this signed call was already used (a replay); nothing was decided")]
    Replayed,
    #[error("this signed call expired at {expired}; nothing was decided")]
    Expired { expired: String },
    #[error("this signed call expires too far ahead (at most {} minutes); nothing was decided", MAX_EXPIRY.whole_minutes())]
    TooFarAhead,
    #[error("the plan of request {id} changed since the phone showed it (it is {current_hash} now, the phone showed {seen_hash}); nothing was decided: read it again")]
    PlanChanged {
        id: String,
        seen_hash: String,
        current_hash: String,
    },
    #[error("the pairing link is not known (mistyped, or already used); pair again")]
    PairingUnknown,
    #[error("the pairing link expired at {expired}; make a new one")]
    PairingExpired { expired: String },
    #[error("the device key is not an ECDSA P-256 public key: {message}")]
    BadKey { message: String },
    #[error("{message}")]
    BadInput { message: String },
    #[error("the passkey's answer is refused: {reason}; nothing was decided")]
    BadPasskey { reason: String },
    #[error(
        "the passkey did not verify the person (no fingerprint, face or PIN); nothing was decided"
    )]
    UserNotVerified,
    #[error("this phone paired with a passkey: its decisions need it (a signature of the page's key alone is refused); nothing was decided")]
    PasskeyRequired,
    #[error("{message}")]
    NotYourTailnet { message: String },
    /// A call sent by a page of another site open in the phone's browser.
    #[error("{message}")]
    CrossOrigin { message: String },
    #[error("{0}")]
    Gate(#[from] GateError),
    /// Another machine's request: what that machine (or its link) said; nothing decided when it
    /// is `unreachable` (the page says "unknown").
    #[error("{0}")]
    Elsewhere(crate::ipc::IpcError),
    #[error(transparent)]
    Write(#[from] durable::WriteError),
    #[error("cannot read {path}: {message}")]
    Read { path: PathBuf, message: String },
}

impl PhoneError {
    /// A short stable name of the refusal (the page and `--json` show it; tests match it).
    pub fn kind(&self) -> &'static str {
        match self {
            PhoneError::NoDevice { .. } => "noDevice",
            PhoneError::Revoked { .. } => "revoked",
            PhoneError::BadSignature => "badSignature",
            PhoneError::Replayed => "replayed",
            PhoneError::Expired { .. } => "expired",
            PhoneError::TooFarAhead => "tooFarAhead",
            PhoneError::PlanChanged { .. } => "planChanged",
            PhoneError::PairingUnknown => "pairingUnknown",
            PhoneError::PairingExpired { .. } => "pairingExpired",
            PhoneError::BadKey { .. } => "badKey",
            PhoneError::BadInput { .. } => "badInput",
            PhoneError::BadPasskey { .. } => "badPasskey",
            PhoneError::UserNotVerified => "userNotVerified",
            PhoneError::PasskeyRequired => "passkeyRequired",
            PhoneError::NotYourTailnet { .. } => "notYourTailnet",
            PhoneError::CrossOrigin { .. } => "crossOrigin",
            PhoneError::Gate(GateError::AlreadyDecided { .. }) => "alreadyDecided",
            PhoneError::Gate(GateError::AlreadyDeciding { .. }) => "alreadyDeciding",
            PhoneError::Gate(GateError::Closed { .. }) => "closed",
            PhoneError::Gate(GateError::NotFound { .. }) => "notFound",
            PhoneError::Gate(_) => "gate",
            PhoneError::Elsewhere(e) => match e.kind {
                crate::ipc::ErrorKind::Unreachable => "unreachable",
                crate::ipc::ErrorKind::PlanChanged => "planChanged",
                crate::ipc::ErrorKind::NotFound => "notFound",
                _ => "elsewhere",
            },
            PhoneError::Write(_) | PhoneError::Read { .. } => "io",
        }
    }
}

impl From<PhoneError> for crate::ipc::IpcError {
    fn from(e: PhoneError) -> Self {
        use crate::ipc::{ErrorKind, IpcError};
        if let PhoneError::Elsewhere(e) = e {
            return e;
        }
        let kind = match &e {
            PhoneError::Gate(_) => {
                let PhoneError::Gate(g) = e else {
                    unreachable!()
                };
                return IpcError::from(g);
            }
            PhoneError::PlanChanged { .. } => ErrorKind::PlanChanged,
            PhoneError::BadKey { .. } | PhoneError::BadInput { .. } => ErrorKind::BadInput,
            PhoneError::Write(_) | PhoneError::Read { .. } => ErrorKind::Io,
            PhoneError::NoDevice { .. } | PhoneError::PairingUnknown => ErrorKind::NotFound,
            _ => ErrorKind::Refused,
        };
        IpcError::new(kind, e.to_string())
    }
}

/// A paired phone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Device {
    /// Short id derived from the key (the first 16 hex of its SHA-256): what the phone sends.
    pub id: String,
    /// The name the person gave it ("Pixel").
    pub name: String,
    /// The public key: the uncompressed P-256 point (65 bytes), base64url.
    pub public_key: String,
    pub paired_at: String,
    /// Last signed call accepted from it (RFC 3339).
    pub last_seen: Option<String>,
    pub revoked: bool,
    /// Its passkey, when it paired with one ([`webauthn`]): each decision then needs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passkey: Option<webauthn::Passkey>,
}

/// A pairing link made: the secret (only shown, never stored) and when it expires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pairing {
    pub secret: String,
    pub expires: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PairingFile {
    /// SHA-256 of each secret not yet used, with when it expires.
    pending: Vec<PendingPairing>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PendingPairing {
    hash: String,
    expires: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DeviceFile {
    devices: Vec<Device>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NonceFile {
    /// Each nonce used and when its call expires (unix seconds): kept until then.
    used: Vec<(String, i64)>,
}

pub(crate) fn dir(roots: &Roots) -> PathBuf {
    roots.data.join("phone")
}

/// The phone store's lock: every read-modify-write of its files holds it.
struct Lock(fs::File);

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

fn lock(roots: &Roots) -> Result<Lock, PhoneError> {
    let path = dir(roots).join("lock");
    let file = durable::open_private(&path)?;
    file.lock().map_err(|e| PhoneError::Read {
        path,
        message: e.to_string(),
    })?;
    Ok(Lock(file))
}

fn read<T: Default + for<'de> Deserialize<'de>>(
    roots: &Roots,
    name: &str,
) -> Result<T, PhoneError> {
    let path = dir(roots).join(name);
    match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| PhoneError::Read {
            path,
            message: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(e) => Err(PhoneError::Read {
            path,
            message: e.to_string(),
        }),
    }
}

fn write<T: Serialize>(roots: &Roots, name: &str, value: &T) -> Result<(), PhoneError> {
    let bytes = serde_json::to_vec_pretty(value).map_err(|e| PhoneError::BadInput {
        message: format!("cannot encode {name}: {e}"),
    })?;
    durable::write_private(&dir(roots).join(name), &bytes)?;
    Ok(())
}

/// Puts this process in a session of its own (the background server): it outlives the terminal
/// or window that started it.
pub fn detach() {
    if let Err(e) = rustix::process::setsid() {
        tracing::debug!("setsid: {e}");
    }
}

fn now() -> time::OffsetDateTime {
    crate::timestamp::now_seconds()
}

/// Makes a one-time pairing secret valid for [`PAIRING_VALID`]; only its hash is kept.
pub fn pair_start(roots: &Roots) -> Result<Pairing, PhoneError> {
    let secret = sign::random_token(32)?;
    let expires = now() + PAIRING_VALID;
    let _lock = lock(roots)?;
    let mut file: PairingFile = read(roots, "pairings.json")?;
    let t = now();
    file.pending
        .retain(|p| crate::timestamp::parse(&p.expires).is_some_and(|e| e > t));
    file.pending.push(PendingPairing {
        hash: durable::sha256_hex(secret.as_bytes()),
        expires: crate::timestamp::format(expires),
    });
    write(roots, "pairings.json", &file)?;
    Ok(Pairing {
        secret,
        expires: crate::timestamp::format(expires),
    })
}

/// What the phone sends to pair: the secret from the link, its name, its public key (raw point,
/// SPKI or JWK) and its signature of [`sign::canonical_pairing`] with that key.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PairRequest {
    pub secret: String,
    pub name: String,
    pub public_key: serde_json::Value,
    pub signature: String,
}

/// Pairs a device: the secret must be one not yet used and not expired (it is consumed now,
/// whatever follows), and the signature must be by the key offered.
pub fn pair_finish(roots: &Roots, req: &PairRequest) -> Result<Device, PhoneError> {
    pair_finish_with(roots, req, None)
}

/// The page's host and origin as served now (what a passkey is checked against).
pub fn page_expect(roots: &Roots) -> Result<webauthn::Expect, PhoneError> {
    let Some(config) = server::read_config(roots)?.filter(|c| c.on) else {
        return Err(PhoneError::BadInput {
            message: "the phone page is off".to_owned(),
        });
    };
    webauthn::Expect::for_config(&config)
}

/// [`pair_finish`] with the passkey the phone made (when its browser offers passkeys): checked
/// against the page's host and origin, its challenge the SHA-256 of
/// [`sign::canonical_pairing`]; kept with the device, whose decisions then need it.
pub fn pair_finish_with(
    roots: &Roots,
    req: &PairRequest,
    passkey: Option<&webauthn::Registration>,
) -> Result<Device, PhoneError> {
    let name = clean_name(&req.name)?;
    let key = sign::parse_public_key(&req.public_key)?;
    let _lock = lock(roots)?;
    let mut file: PairingFile = read(roots, "pairings.json")?;
    let hash = durable::sha256_hex(req.secret.as_bytes());
    let Some(at) = file.pending.iter().position(|p| p.hash == hash) else {
        return Err(PhoneError::PairingUnknown);
    };
    let pending = file.pending.remove(at);
    // Consumed on first use, whether or not what follows succeeds.
    write(roots, "pairings.json", &file)?;
    let expires = crate::timestamp::parse(&pending.expires).unwrap_or(now());
    if expires <= now() {
        return Err(PhoneError::PairingExpired {
            expired: pending.expires,
        });
    }
    sign::verify_raw(
        &key,
        sign::canonical_pairing(&req.secret).as_bytes(),
        &req.signature,
    )?;
    let passkey = match passkey {
        Some(reg) => Some(webauthn::verify_registration(
            reg,
            &page_expect(roots)?,
            &webauthn::sha256(sign::canonical_pairing(&req.secret).as_bytes()),
        )?),
        None => None,
    };
    let mut devices: DeviceFile = read(roots, "devices.json")?;
    let id = sign::device_id(&key);
    if let Some(d) = devices.devices.iter().find(|d| d.id == id) {
        return Err(PhoneError::BadInput {
            message: if d.revoked {
                format!(
                    "this device key was revoked (as \"{}\"): it stays refused; pair the phone afresh, with a new key",
                    d.name
                )
            } else {
                format!("this device key is already paired (as \"{}\")", d.name)
            },
        });
    }
    if devices.devices.iter().any(|d| d.name == name && !d.revoked) {
        return Err(PhoneError::BadInput {
            message: format!("a device named \"{name}\" is already paired; choose another name"),
        });
    }
    let device = Device {
        id,
        name,
        public_key: sign::b64(&key),
        paired_at: crate::timestamp::format(now()),
        last_seen: None,
        revoked: false,
        passkey,
    };
    devices.devices.push(device.clone());
    write(roots, "devices.json", &devices)?;
    Ok(device)
}

fn clean_name(name: &str) -> Result<String, PhoneError> {
    let name: String = crate::terminal::clean_text(name, MAX_NAME * 4)
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let name = name.trim().to_owned();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Err(PhoneError::BadInput {
            message: format!("a device's name is 1 to {MAX_NAME} visible characters"),
        });
    }
    Ok(name)
}

/// The paired devices, revoked ones included, in the order they were paired.
pub fn devices(roots: &Roots) -> Result<Vec<Device>, PhoneError> {
    Ok(read::<DeviceFile>(roots, "devices.json")?.devices)
}

/// Revokes the device named `name` (or with that id): its calls are refused from now on.
pub fn revoke(roots: &Roots, name: &str) -> Result<Device, PhoneError> {
    let _lock = lock(roots)?;
    let mut file: DeviceFile = read(roots, "devices.json")?;
    let Some(d) = file
        .devices
        .iter_mut()
        .find(|d| !d.revoked && (d.name == name || d.id == name))
    else {
        return Err(PhoneError::NoDevice {
            device: name.to_owned(),
        });
    };
    d.revoked = true;
    let out = d.clone();
    write(roots, "devices.json", &file)?;
    // Its push subscription goes with it: nothing more is sent to it.
    push::forget_locked(roots, &out.id)?;
    Ok(out)
}

/// Whether someone can decide a plan now, so a plan hook waits for them: the window (or a client
/// of the per-user server) is open ([`crate::gate::app_running`]), or a paired phone was seen
/// within the person's chosen minutes ([`present`]). With nobody, hooks fall back to the agent's
/// own prompt.
pub fn someone_to_decide(roots: &Roots) -> bool {
    crate::gate::app_running(roots) || present(roots)
}

/// Whether a paired phone keeps plan hooks waiting (issue 37, item 6): the page is on and
/// served, the person's wait ([`server::PhoneConfig::wait_minutes`]) is not 0, and a device not
/// revoked made a signed call within that many minutes. As the open window, it only keeps a hook
/// waiting: the hook's deadline and the terminal's own prompt after it stay.
pub fn present(roots: &Roots) -> bool {
    let Ok(Some(config)) = server::read_config(roots) else {
        return false;
    };
    if !config.on || config.wait_minutes == 0 || server::running(roots).is_none() {
        return false;
    }
    let since = now() - time::Duration::minutes(i64::from(config.wait_minutes));
    devices(roots).unwrap_or_default().iter().any(|d| {
        !d.revoked
            && d.last_seen
                .as_deref()
                .and_then(crate::timestamp::parse)
                .is_some_and(|t| t >= since)
    })
}

/// Who signed a call, as every signed call of the page carries it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Signed {
    pub device: String,
    pub nonce: String,
    /// Unix seconds.
    pub expires: i64,
    /// ECDSA P-256 with SHA-256, `r‖s` (64 bytes, WebCrypto's form), base64url.
    pub signature: String,
}

/// Checks a signed call whose canonical bytes are `message`: the device is known and not
/// revoked, the signature is its key's, the call has not expired (nor expires too far ahead), and
/// its nonce was never used. The nonce is then kept and the device's last-seen updated. Returns
/// the device.
pub fn verify(roots: &Roots, signed: &Signed, message: &[u8]) -> Result<Device, PhoneError> {
    verify_then(roots, signed, message, |_| Ok(()))
}

/// [`verify`] with one more check of the device (its passkey's assertion), made under the same
/// lock after the others and before the nonce is kept: refused, nothing is kept.
fn verify_then(
    roots: &Roots,
    signed: &Signed,
    message: &[u8],
    also: impl FnOnce(&mut Device) -> Result<(), PhoneError>,
) -> Result<Device, PhoneError> {
    sign::check_nonce(&signed.nonce)?;
    let _lock = lock(roots)?;
    let mut devices: DeviceFile = read(roots, "devices.json")?;
    let Some(device) = devices.devices.iter_mut().find(|d| d.id == signed.device) else {
        return Err(PhoneError::NoDevice {
            device: signed.device.clone(),
        });
    };
    if device.revoked {
        return Err(PhoneError::Revoked {
            name: device.name.clone(),
        });
    }
    let key = sign::unb64(&device.public_key)?;
    sign::verify_raw(&key, message, &signed.signature)?;
    let t = now().unix_timestamp();
    if signed.expires <= t {
        return Err(PhoneError::Expired {
            expired: time::OffsetDateTime::from_unix_timestamp(signed.expires)
                .map(crate::timestamp::format)
                .unwrap_or_else(|_| signed.expires.to_string()),
        });
    }
    if signed.expires > t + MAX_EXPIRY.whole_seconds() {
        return Err(PhoneError::TooFarAhead);
    }
    let mut nonces: NonceFile = read(roots, "nonces.json")?;
    nonces.used.retain(|(_, e)| *e > t);
    if nonces.used.iter().any(|(n, _)| *n == signed.nonce) {
        return Err(PhoneError::Replayed);
    }
    if nonces.used.len() >= MAX_NONCES {
        return Err(PhoneError::BadInput {
            message: "too many signed calls at once; try again in a few minutes".to_owned(),
        });
    }
    also(device)?;
    nonces.used.push((signed.nonce.clone(), signed.expires));
    write(roots, "nonces.json", &nonces)?;
    device.last_seen = Some(crate::timestamp::format(now()));
    let out = device.clone();
    write(roots, "devices.json", &devices)?;
    Ok(out)
}

/// A decision signed by a phone.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignedDecision {
    pub request_id: String,
    /// The hash of the plan the phone showed (the listing's `planHash`).
    pub plan_hash: String,
    pub decision: Verdict,
    /// The feedback (reject) or the note (approve with a note); empty for a plain approval.
    #[serde(default)]
    pub feedback: String,
    #[serde(flatten)]
    pub signed: Signed,
}

/// Who decided, as the claim and the decision log name a phone.
pub fn decider(device: &Device) -> String {
    format!("the phone \"{}\" (device {})", device.name, device.id)
}

/// Checks a signed decision ([`verify`] over [`canonical_decision`]) and decides it through the
/// gate's claim, the plan hash as the version read. Refused with its reason, nothing decided,
/// when any check fails; a second decider is told who won and when.
pub fn decide(roots: &Roots, d: &SignedDecision) -> Result<DecisionOutcome, PhoneError> {
    decide_with(roots, d, DeliveryOptions::default())
}

/// [`decide`] with the gate's delivery timing given (tests shorten it).
pub fn decide_with(
    roots: &Roots,
    d: &SignedDecision,
    opts: DeliveryOptions,
) -> Result<DecisionOutcome, PhoneError> {
    decide_full(roots, d, None, opts)
}

/// [`decide`] with the passkey's assertion the page sent: a device paired with a passkey needs
/// one whose challenge is the SHA-256 of the canonical decision, with the person verified.
pub fn decide_with_passkey(
    roots: &Roots,
    d: &SignedDecision,
    assertion: Option<&webauthn::Assertion>,
) -> Result<DecisionOutcome, PhoneError> {
    decide_full(roots, d, assertion, DeliveryOptions::default())
}

fn decide_full(
    roots: &Roots,
    d: &SignedDecision,
    assertion: Option<&webauthn::Assertion>,
    opts: DeliveryOptions,
) -> Result<DecisionOutcome, PhoneError> {
    if d.feedback.len() > MAX_FEEDBACK {
        return Err(PhoneError::BadInput {
            message: format!("feedback over {MAX_FEEDBACK} bytes is refused, not cut"),
        });
    }
    let message = canonical_decision(
        &d.request_id,
        &d.plan_hash,
        d.decision,
        &d.feedback,
        &d.signed.nonce,
        d.signed.expires,
    )?;
    let challenge = webauthn::sha256(message.as_bytes());
    let device = verify_then(roots, &d.signed, message.as_bytes(), |device| {
        match (&mut device.passkey, assertion) {
            (None, None) => Ok(()),
            (None, Some(_)) => Err(PhoneError::BadPasskey {
                reason: "this phone paired without a passkey".to_owned(),
            }),
            (Some(_), None) => Err(PhoneError::PasskeyRequired),
            (Some(passkey), Some(a)) => {
                let count =
                    webauthn::verify_assertion(a, passkey, &page_expect(roots)?, &challenge)?;
                passkey.sign_count = count;
                Ok(())
            }
        }
    })?;
    // Another machine's request: decided there, as the window decides it.
    if let Some(other) = other_machines().filter(|o| o.owns(&d.request_id)) {
        return other.decide(roots, d, &device);
    }
    // The phone shows plans only: a permission request (a command, a file write) would be
    // approved with nothing of it on screen. Its rejection allows nothing and goes.
    if d.decision != Verdict::Reject
        && gate::pending(roots)
            .iter()
            .any(|r| r.id == d.request_id && r.kind != gate::RequestKind::Plan)
    {
        return Err(PhoneError::BadInput {
            message: "the phone shows no permission request's command or file: approve it in \
                      the window or with `plandeck approve`, where it is shown"
                .to_owned(),
        });
    }
    let decision = match d.decision {
        Verdict::Approve => GateDecision::Approve {
            mode: ApproveMode::Auto,
            edited: None,
            started_from: None,
        },
        Verdict::ApproveWithNote => {
            if d.feedback.trim().is_empty() {
                return Err(PhoneError::BadInput {
                    message: "an approval with a note needs the note".to_owned(),
                });
            }
            // The note goes as a "Reviewer notes" section of the plan the phone showed.
            let Some(req) = gate::pending(roots)
                .into_iter()
                .find(|r| r.id == d.request_id)
            else {
                return Err(GateError::NotFound {
                    id: d.request_id.clone(),
                }
                .into());
            };
            let plan = req.plan_read.clone().unwrap_or_else(|| req.plan.clone());
            let note = crate::terminal::clean_text(&d.feedback, MAX_FEEDBACK);
            GateDecision::Approve {
                mode: ApproveMode::Auto,
                edited: Some(format!(
                    "{}\n\n{}\n\n{}\n",
                    plan.trim_end(),
                    crate::comments::feedback::NOTES_HEADING,
                    note.trim()
                )),
                started_from: None,
            }
        }
        Verdict::Reject => GateDecision::Reject {
            feedback: d.feedback.clone(),
        },
    };
    let opts = DeliveryOptions {
        by: decider(&device),
        seen_hash: Some(d.plan_hash.clone()),
        ..opts
    };
    gate::decide_with(roots, &d.request_id, decision, &opts).map_err(|e| match e {
        GateError::PlanChangedSinceRead {
            id,
            seen_hash,
            current_hash,
        } => PhoneError::PlanChanged {
            id,
            seen_hash,
            current_hash,
        },
        other => PhoneError::Gate(other),
    })
}
