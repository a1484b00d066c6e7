//! The index of every session: a cold open that reads heads and tails in parallel, then updates
//! from the paths a file watcher reports, reading only appended bytes.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use time::OffsetDateTime;

use super::state::{self, Facts, Registry, SessionState};
use super::transcript::{
    elide_long_strings, read_head, with_tail_buffers, Follower, LineSplitter, Progress, ELIDE_KEEP,
    ELIDE_LINE, TAIL_WINDOWS,
};
use super::{SessionSummary, SessionUsage, TaskProgress, WorktreeHint};
use crate::agents::records::{dir_entries, is_jsonl, walk, RegistryFile};
use crate::agents::{self, records, Agent};
use crate::config::Roots;
use crate::stamped::{check_before, FileStamp, Resume};

/// Head windows tried for the cwd and first prompt.
const HEAD_WINDOWS: [u64; 3] = [8 << 10, 64 << 10, 512 << 10];

#[derive(Debug)]
struct Entry {
    agent: Agent,
    key: String,
    follower: Follower,
    facts: Facts,
    subagents: Vec<Follower>,
    deleted: bool,
    tasks: Option<TaskProgress>,
    plan: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq)]
struct Live {
    /// The agent whose registry it is in.
    agent: Agent,
    file: RegistryFile,
    alive: bool,
}

/// What [`SessionIndex::open`] did with each transcript, against the persistent index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenStats {
    /// Transcripts found.
    pub files: u32,
    /// Taken from the persistent index unread (same file, size and mtime).
    pub reused: u32,
    /// Read on from the stored offset (appended to).
    pub resumed: u32,
    /// Read cold (head and tail): new, replaced, shrunk, rewritten, or no usable stored entry.
    pub cold: u32,
    /// Bytes read on from stored offsets.
    pub resumed_bytes: u64,
    /// Whether the persistent index file was unusable (damaged, another version) and rebuilt.
    pub store_rebuilt: bool,
}

/// Version of `<data>/sessions/index.json`; another version is rebuilt.
/// 2: facts carry the tokens (`usage`); an index of version 1 has none, so it is read anew.
const STORE_VERSION: u32 = 2;

/// The persistent index ([`crate::stamped`]): per transcript, its stamp, the offset read to (the
/// end of the last complete line), a check of the bytes before it, and the facts read so far.
type Store = std::collections::BTreeMap<PathBuf, Stored>;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    agent: Agent,
    stamp: FileStamp,
    offset: u64,
    check: u64,
    key: String,
    facts: Facts,
}

pub(crate) fn store_path(data: &Path) -> PathBuf {
    data.join("sessions").join("index.json")
}

/// The stored index, or an empty one when it is missing, damaged or of another version (then
/// `rebuilt` is set): never trusted beyond what each entry's stamp and check confirm.
fn load_store(data: &Path) -> (Store, bool) {
    let path = store_path(data);
    let (store, rebuild) = crate::stamped::load(&path, STORE_VERSION);
    if let Some(why) = &rebuild {
        tracing::warn!("session index {} {why}: rebuilt", path.display());
    }
    (store, rebuild.is_some())
}

/// How an entry came to be: unread from the store, read on from its offset, or read cold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Reused,
    Resumed(u64),
    Cold,
}

/// Every session on the machine, kept up to date from file-watcher paths.
#[derive(Debug)]
pub struct SessionIndex {
    roots: Roots,
    entries: Vec<Entry>,
    by_path: HashMap<PathBuf, usize>,
    subagent_paths: HashMap<PathBuf, (usize, usize)>,
    registry: HashMap<PathBuf, Live>,
    /// Sessions whose registry entry was removed while watched (Claude Code's): the CLI removes
    /// its entry when it exits, so such a session is over (`ended`) however its last records
    /// read (a killed tmux session, Plandeck's own Stop), until an entry names it again.
    exited: BTreeSet<(Agent, String)>,
    /// Each agent's registry of project folders ([`records::Records::projects`]).
    projects: HashMap<Agent, HashMap<String, String>>,
    now: Option<OffsetDateTime>,
    stats: OpenStats,
}

/// Every transcript of every agent under `roots` (Claude Code sessions, Gemini CLI chats, Codex
/// CLI rollouts), subagent transcripts not included. Shared with [`crate::history`].
pub(crate) fn transcript_files(roots: &Roots) -> Vec<(Agent, PathBuf)> {
    agents::all()
        .iter()
        .flat_map(|d| {
            records(d.agent)
                .transcripts(roots)
                .into_iter()
                .map(|p| (d.agent, p))
        })
        .collect()
}

pub(super) fn feed(agent: Agent, facts: &mut Facts, line: &[u8]) {
    // A multi-MiB line (a tool's whole output, a file's content) is shrunk to its structure and
    // short fields before parsing: what state needs is never in a long string.
    if line.len() > ELIDE_LINE {
        thread_local! {
            static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        return BUF.with(|b| {
            let mut b = b.borrow_mut();
            elide_long_strings(line, ELIDE_KEEP, &mut b);
            feed_parsed(agent, facts, &b);
            if b.capacity() > 1 << 20 {
                *b = Vec::new();
            }
        });
    }
    feed_parsed(agent, facts, line)
}

fn feed_parsed(agent: Agent, facts: &mut Facts, line: &[u8]) {
    records(agent).feed_line(facts, line)
}

fn from_millis(ms: i64) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).ok()
}

fn format_time(t: OffsetDateTime) -> Option<String> {
    t.to_offset(time::UtcOffset::UTC)
        .format(&time::format_description::well_known::Rfc3339)
        .ok()
}

impl SessionIndex {
    /// Discovers every session and reads what changed since the persistent index
    /// (`<data>/sessions/index.json`) was written: an unchanged transcript is not read, an
    /// appended one is read on from its stored offset, any other (new, replaced, shrunk, rewritten,
    /// or a damaged index) is read cold, head and tail. The index is then saved (atomically) when
    /// anything differs.
    pub fn open(roots: &Roots) -> SessionIndex {
        Self::open_with_progress(roots, &|_| {})
    }

    /// [`SessionIndex::open`], telling `progress` how many transcripts are read so far (from any
    /// reading thread, at most about once per 1% and at the end), so a window can fill in.
    pub fn open_with_progress(
        roots: &Roots,
        progress: &(dyn Fn(super::IndexProgress) + Sync),
    ) -> SessionIndex {
        let mut index = SessionIndex {
            roots: roots.clone(),
            entries: Vec::new(),
            by_path: HashMap::new(),
            subagent_paths: HashMap::new(),
            registry: HashMap::new(),
            exited: BTreeSet::new(),
            projects: HashMap::new(),
            now: None,
            stats: OpenStats::default(),
        };
        index.load_projects();
        for d in agents::all() {
            let Some(dir) = records(d.agent).registry_dir(roots) else {
                continue;
            };
            for p in dir_entries(&dir) {
                index.read_registry(d.agent, &p);
            }
        }
        let (store, rebuilt) = load_store(&roots.data);
        let found = index.discover_all();
        let total = found.len();
        let step = (total / 100).max(1);
        let read = std::sync::atomic::AtomicUsize::new(0);
        progress(super::IndexProgress::new(0, total, false));
        let entries: Vec<(Entry, Origin)> = with_tail_buffers(|| {
            found
                .into_par_iter()
                .map(|(agent, path)| {
                    let e = index.load_stored(agent, &path, store.get(&path));
                    let n = read.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    if n.is_multiple_of(step) && n < total {
                        progress(super::IndexProgress::new(n, total, false));
                    }
                    e
                })
                .collect()
        });
        let mut stats = OpenStats {
            files: entries.len() as u32,
            store_rebuilt: rebuilt,
            ..OpenStats::default()
        };
        for (e, origin) in entries {
            match origin {
                Origin::Reused => stats.reused += 1,
                Origin::Resumed(n) => {
                    stats.resumed += 1;
                    stats.resumed_bytes += n;
                }
                Origin::Cold => stats.cold += 1,
            }
            index.insert(e);
        }
        index.stats = stats;
        if rebuilt || stats.resumed + stats.cold > 0 || store.len() != index.entries.len() {
            if let Err(e) = index.save() {
                tracing::warn!("the session index was not saved: {e}");
            }
        }
        progress(super::IndexProgress::new(total, total, true));
        index
    }

    /// What the last [`SessionIndex::open`] read.
    pub fn open_stats(&self) -> OpenStats {
        self.stats
    }

    /// Writes the persistent index (atomically, 0600 in a 0700 folder): every transcript read so far, with its stamp and
    /// offset. Sessions with subagent transcripts are left out (read cold each time).
    pub fn save(&self) -> Result<(), crate::durable::WriteError> {
        let mut store = Store::new();
        for e in &self.entries {
            if e.deleted || !e.subagents.is_empty() || e.agent == Agent::Other {
                continue;
            }
            let path = &e.follower.path;
            let offset = e.follower.offset - e.follower.splitter.pending() as u64;
            let (Ok(stamp), Ok(check)) = (FileStamp::of(path), check_before(path, offset)) else {
                continue;
            };
            // Only a stamp taken where the follower stopped says "read up to here".
            if stamp.ino != e.follower.file_id || stamp.size != e.follower.offset {
                continue;
            }
            store.insert(
                path.clone(),
                Stored {
                    agent: e.agent,
                    stamp,
                    offset,
                    check,
                    key: e.key.clone(),
                    facts: e.facts.clone(),
                },
            );
        }
        crate::stamped::save(&store_path(&self.roots.data), STORE_VERSION, &store)
    }

    /// An entry from its stored state when the file allows it, else read cold.
    fn load_stored(&self, agent: Agent, path: &Path, stored: Option<&Stored>) -> (Entry, Origin) {
        if let Some(s) = stored.filter(|s| s.agent == agent) {
            if let Some(found) = self.resume_stored(agent, path, s) {
                return found;
            }
        }
        (self.load(agent, path), Origin::Cold)
    }

    fn resume_stored(&self, agent: Agent, path: &Path, s: &Stored) -> Option<(Entry, Origin)> {
        let now = FileStamp::of(path).ok()?;
        let resume = s.stamp.resume(s.offset, &now);
        if resume == Resume::Restart || check_before(path, s.offset).ok()? != s.check {
            return None;
        }
        if !records(agent).subagent_transcripts(path).is_empty() {
            return None;
        }
        let mut e = Entry {
            agent,
            key: s.key.clone(),
            follower: Follower {
                path: path.to_owned(),
                offset: s.offset,
                file_id: now.ino,
                splitter: LineSplitter::default(),
            },
            facts: s.facts.clone(),
            subagents: Vec::new(),
            deleted: false,
            tasks: None,
            plan: None,
        };
        let origin = match resume {
            Resume::Unchanged if now.size == s.offset => Origin::Reused,
            _ => {
                let facts = &mut e.facts;
                match e.follower.read_new(&mut |l| feed(agent, facts, l)) {
                    Ok(Progress::Appended | Progress::Unchanged) => {}
                    _ => return None,
                }
                e.facts.unreadable += std::mem::take(&mut e.follower.splitter.overlong);
                e.key = session_key(agent, path, &e.facts);
                Origin::Resumed(e.follower.offset - s.offset)
            }
        };
        e.tasks = records(agent).task_progress(&self.roots, &e.key);
        self.refresh_plan(&mut e);
        Some((e, origin))
    }

    /// Fixes the clock used for time-based rules (tests, benchmarks); `None` uses the system clock.
    pub fn set_now(&mut self, now: Option<OffsetDateTime>) {
        self.now = now;
    }

    fn now(&self) -> OffsetDateTime {
        self.now.unwrap_or_else(OffsetDateTime::now_utc)
    }

    /// What a watcher should watch (folders recursively, plus Gemini's `projects.json` file) for
    /// [`SessionIndex::apply`]: every folder of every agent, whether it exists yet or not. The
    /// watcher arms a missing one on its nearest existing ancestor and reports what is in it once
    /// it appears (a first run, before any agent made its folders: issue 34). Pid liveness has no
    /// file event: call [`SessionIndex::tick`] now and then, and `sessions()` again for
    /// time-based states.
    pub fn watch_roots(&self) -> Vec<PathBuf> {
        Self::watch_roots_of(&self.roots)
    }

    /// [`SessionIndex::watch_roots`] before any index is open (a watcher started while the index
    /// loads in the background).
    pub fn watch_roots_of(roots: &Roots) -> Vec<PathBuf> {
        agents::all()
            .iter()
            .flat_map(|d| records(d.agent).watch_roots(roots))
            .collect()
    }

    fn discover_all(&self) -> Vec<(Agent, PathBuf)> {
        transcript_files(&self.roots)
    }

    /// Which agent's transcript `path` would be, by where it is.
    fn classify(&self, path: &Path) -> Option<Agent> {
        agents::all()
            .iter()
            .map(|d| d.agent)
            .find(|&a| records(a).is_transcript(&self.roots, path))
    }

    fn load_projects(&mut self) {
        self.projects = agents::all()
            .iter()
            .map(|d| (d.agent, records(d.agent).projects(&self.roots)))
            .collect();
    }

    /// The project a transcript is in by its folder, when its records name none.
    fn project_of(&self, agent: Agent, path: &Path) -> Option<String> {
        let none = HashMap::new();
        let projects = self.projects.get(&agent).unwrap_or(&none);
        records(agent).project_of(path, projects)
    }

    /// Reads a transcript cold: head for the cwd and first prompt, then the tail.
    fn load(&self, agent: Agent, path: &Path) -> Entry {
        let mut e = Entry {
            agent,
            key: String::new(),
            follower: Follower::new(path),
            facts: Facts::default(),
            subagents: Vec::new(),
            deleted: false,
            tasks: None,
            plan: None,
        };
        self.reload(&mut e);
        e
    }

    fn reload(&self, e: &mut Entry) {
        let path = e.follower.path.clone();
        let agent = e.agent;
        let Ok(meta) = std::fs::metadata(&path) else {
            e.deleted = true;
            return;
        };
        let len = meta.len();
        let mut base = Facts::default();
        let small = len <= HEAD_WINDOWS[0] + TAIL_WINDOWS[0];
        if !small {
            for limit in HEAD_WINDOWS {
                let mut head = Facts::default();
                let _ = read_head(&path, limit, &mut |l| feed(agent, &mut head, l));
                let enough = records(agent).head_tells_enough(&head);
                base = head;
                if enough || limit >= len {
                    break;
                }
            }
            // What the head says about the turn is old news; the tail decides it.
            base.turn = state::Turn::None;
            base.pending.clear();
            base.unreadable = 0;
            // The middle is not read (and the head and the tail may overlap): the tokens are
            // counted from the tail only, as part of them, until a record of the totals there
            // says them all.
            base.usage = Some(records::state::Usage::partial());
        }
        let mut follower = Follower::new(&path);
        let mut facts = base.clone();
        // A small file is read whole, once; a larger one from whole lines at its end, widened
        // while they hold no record that tells the turn.
        let windows: &[u64] = if small { &[u64::MAX] } else { &TAIL_WINDOWS };
        let facts_cell = std::cell::RefCell::new(&mut facts);
        let read = follower.read_tail_lines(
            windows,
            &mut || **facts_cell.borrow_mut() = base.clone(),
            &mut |l| feed(agent, &mut facts_cell.borrow_mut(), l),
            &mut || facts_cell.borrow().anchored(),
        );
        if read.is_err() {
            e.deleted = true;
            return;
        }
        facts.unreadable += std::mem::take(&mut follower.splitter.overlong);
        if facts.cwd.is_none() {
            facts.cwd = self.project_of(agent, &path);
        }
        e.key = session_key(agent, &path, &facts);
        e.facts = facts;
        e.follower = follower;
        e.deleted = false;
        e.subagents.clear();
        let r = records(agent);
        for sub in r.subagent_transcripts(&path) {
            let mut f = Follower::new(&sub);
            let facts = &mut e.facts;
            let _ = f.read_tail(TAIL_WINDOWS[0], &mut |l| r.feed_subagent_line(facts, l));
            e.subagents.push(f);
        }
        if r.tasks_dir(&self.roots).is_some() {
            e.tasks = r.task_progress(&self.roots, &e.key);
        }
        self.refresh_plan(e);
    }

    fn resolve_plan(&self, e: &Entry) -> Option<PathBuf> {
        records(e.agent).plan_file(&self.roots, &e.follower.path, &e.key, &e.facts)
    }

    fn refresh_plan(&self, e: &mut Entry) {
        e.plan = self.resolve_plan(e);
    }

    fn insert(&mut self, e: Entry) {
        let i = self.entries.len();
        self.by_path.insert(e.follower.path.clone(), i);
        for (j, s) in e.subagents.iter().enumerate() {
            self.subagent_paths.insert(s.path.clone(), (i, j));
        }
        self.entries.push(e);
    }

    fn read_registry(&mut self, agent: Agent, path: &Path) -> bool {
        if path.extension().and_then(|x| x.to_str()) != Some("json") {
            return false;
        }
        let new = records(agent).registry_entry(path).map(|file| {
            let alive = records::pid_alive(file.pid, file.proc_start.as_deref());
            Live { agent, file, alive }
        });
        match new {
            Some(live) => {
                self.exited.remove(&(agent, live.file.session_id.clone()));
                let old = self.registry.insert(path.to_owned(), live.clone());
                old.as_ref() != Some(&live)
            }
            None => {
                let Some(old) = self.registry.remove(path) else {
                    return false;
                };
                // Gone (not merely mid-write): its CLI exited.
                if !path.exists() {
                    self.exited.insert((agent, old.file.session_id));
                }
                true
            }
        }
    }

    /// The registry entry of `agent`'s session `session_id` (any agent's when `None`).
    fn live_for(&self, agent: Option<Agent>, session_id: &str) -> Option<&Live> {
        // Several entries can name one session (a stale one left by a crash and a new one):
        // a live one wins.
        let mut found: Option<&Live> = None;
        for l in self.registry.values() {
            if agent.is_some_and(|a| a != l.agent) {
                continue;
            }
            if l.file.session_id == session_id && !matches!(found, Some(f) if f.alive || !l.alive) {
                found = Some(l);
            }
        }
        found
    }

    fn summary(&self, e: &Entry, now: OffsetDateTime) -> SessionSummary {
        let f = &e.facts;
        let live = self.live_for(Some(e.agent), &e.key);
        let reg = live.map(|l| Registry {
            pid: l.file.pid,
            status: l.file.status.clone(),
            alive: l.alive,
            started: l.file.started_at.and_then(from_millis),
        });
        let exited = self.exited.contains(&(e.agent, e.key.clone()));
        let state = if live.is_none() && exited {
            SessionState::Ended
        } else {
            state::derive(f, reg.as_ref(), now)
        };
        let reg_time = live
            .and_then(|l| l.file.updated_at)
            .and_then(|ms| OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).ok());
        let last = match (f.last_activity, reg_time) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        SessionSummary {
            agent: e.agent,
            session_id: e.key.clone(),
            cwd: f
                .cwd
                .clone()
                .or_else(|| live.and_then(|l| l.file.cwd.clone()))
                .unwrap_or_default(),
            state,
            permission_mode: f.permission_mode.clone(),
            plan_path: e.plan.as_ref().map(|p| p.to_string_lossy().into_owned()),
            worktree: f
                .worktree
                .as_ref()
                .filter(|_| f.in_worktree)
                .map(|w| w.path.clone()),
            last_activity: last.and_then(format_time),
            git_branch: f.git_branch.clone(),
            tmux_pane: live.and_then(|l| l.file.tmux.clone()),
            pid: live.map(|l| l.file.pid),
            version: f
                .version
                .clone()
                .or_else(|| live.and_then(|l| l.file.version.clone())),
            model: f.model.clone(),
            name: live.and_then(|l| l.file.name.clone()),
            title: f.title.clone(),
            doing: f.doing.clone(),
            unreadable_lines: f.unreadable,
            tasks: e.tasks,
            transcript_path: Some(e.follower.path.to_string_lossy().into_owned()),
            // Settled at listing time (crate::standing::settle_sessions).
            review_state: None,
            machine: None,
            usage: f
                .usage
                .as_ref()
                .filter(|u| u.input_tokens > 0 || u.output_tokens > 0 || u.cost_usd.is_some())
                .map(SessionUsage::from),
        }
    }

    fn registry_only(&self, live: &Live) -> SessionSummary {
        let state = if live.alive {
            state::derive(
                &Facts::default(),
                Some(&Registry {
                    pid: live.file.pid,
                    status: live.file.status.clone(),
                    alive: true,
                    started: None,
                }),
                self.now(),
            )
        } else {
            SessionState::Crashed
        };
        SessionSummary {
            agent: live.agent,
            session_id: live.file.session_id.clone(),
            cwd: live.file.cwd.clone().unwrap_or_default(),
            state,
            permission_mode: None,
            plan_path: None,
            worktree: None,
            last_activity: live
                .file
                .updated_at
                .and_then(|ms| {
                    OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).ok()
                })
                .and_then(format_time),
            git_branch: None,
            tmux_pane: live.file.tmux.clone(),
            pid: Some(live.file.pid),
            version: live.file.version.clone(),
            model: None,
            name: live.file.name.clone(),
            title: None,
            unreadable_lines: 0,
            tasks: records(live.agent).task_progress(&self.roots, &live.file.session_id),
            transcript_path: None,
            review_state: None,
            machine: None,
            doing: None,
            usage: None,
        }
    }

    /// Every session, those that need the person first (see the module doc for the order).
    pub fn sessions(&self) -> Vec<SessionSummary> {
        let now = self.now();
        let mut out: Vec<SessionSummary> = self
            .entries
            .iter()
            .filter(|e| !e.deleted)
            .map(|e| self.summary(e, now))
            .collect();
        let mut seen: BTreeSet<(Agent, &str)> = self
            .entries
            .iter()
            .filter(|e| !e.deleted)
            .map(|e| (e.agent, e.key.as_str()))
            .collect();
        let mut lives: Vec<&Live> = self.registry.values().collect();
        lives.sort_by_key(|l| !l.alive);
        for live in lives {
            if seen.insert((live.agent, live.file.session_id.as_str())) {
                out.push(self.registry_only(live));
            }
        }
        sort(&mut out);
        out
    }

    /// One session by id (the first of any agent with that id), without building the whole list:
    /// what a card needs after [`SessionIndex::apply`].
    pub fn session(&self, session_id: &str) -> Option<SessionSummary> {
        let now = self.now();
        if let Some(e) = self
            .entries
            .iter()
            .find(|e| !e.deleted && e.key == session_id)
        {
            return Some(self.summary(e, now));
        }
        self.live_for(None, session_id)
            .map(|l| self.registry_only(l))
    }

    /// Worktree facts of every session of an agent whose records tell them (Claude Code's; see
    /// [`WorktreeHint`]).
    pub fn worktree_hints(&self) -> Vec<WorktreeHint> {
        self.entries
            .iter()
            .filter(|e| !e.deleted && records(e.agent).tells_worktrees())
            .filter_map(|e| {
                let cwd = e.facts.cwd.clone()?;
                let wt = e.facts.worktree.as_ref();
                Some(WorktreeHint {
                    session_id: e.key.clone(),
                    cwd: PathBuf::from(cwd),
                    worktree_path: wt.map(|w| PathBuf::from(&w.path)),
                    original_head_commit: wt.and_then(|w| w.original_head_commit.clone()),
                    original_branch: wt.and_then(|w| w.original_branch.clone()),
                    plan_path: e.plan.clone(),
                    running: self
                        .live_for(Some(e.agent), &e.key)
                        .is_some_and(|l| l.alive),
                })
            })
            .collect()
    }

    /// Re-checks whether the processes of registry entries are alive (a killed CLI leaves its
    /// entry behind and no file changes). Returns whether any changed. Call it now and then.
    pub fn tick(&mut self) -> bool {
        let mut changed = false;
        for live in self.registry.values_mut() {
            let alive = records::pid_alive(live.file.pid, live.file.proc_start.as_deref());
            changed |= alive != live.alive;
            live.alive = alive;
        }
        changed
    }

    /// Updates the index from paths a file watcher reported (files or folders, created, changed
    /// or deleted). Reads only the bytes appended since the last read. Returns whether anything
    /// [`SessionIndex::sessions`] shows changed.
    pub fn apply(&mut self, changed: &[PathBuf]) -> bool {
        let now = self.now();
        let mut touched: BTreeSet<usize> = BTreeSet::new();
        let mut visible = false;
        // First find which entries each path concerns, to snapshot them before the update.
        for p in changed {
            if let Some(&i) = self.by_path.get(p) {
                touched.insert(i);
            } else if let Some(&(i, _)) = self.subagent_paths.get(p) {
                touched.insert(i);
            } else if let Some((agent, list)) = self.task_list_of(p) {
                if let Some(list) = list {
                    touched.extend(self.entries_of(agent, &list));
                }
            } else {
                for (i, e) in self.entries.iter().enumerate() {
                    if e.plan.as_deref() == Some(p.as_path()) {
                        touched.insert(i);
                    }
                }
            }
        }
        let before: Vec<(usize, Option<SessionSummary>)> = touched
            .iter()
            .map(|&i| {
                (
                    i,
                    (!self.entries[i].deleted).then(|| self.summary(&self.entries[i], now)),
                )
            })
            .collect();

        for p in changed {
            if let Some(&i) = self.by_path.get(p) {
                self.follow(i);
            } else if let Some(&(i, j)) = self.subagent_paths.get(p) {
                let e = &mut self.entries[i];
                let facts = &mut e.facts;
                let r = records(e.agent);
                if let Some(sub) = e.subagents.get_mut(j) {
                    let _ = sub.read_new(&mut |l| r.feed_subagent_line(facts, l));
                }
            } else if let Some(agent) = self.registry_of(p) {
                visible |= self.read_registry(agent, p);
            } else if let Some((agent, list)) = self.task_list_of(p) {
                if let Some(list) = list {
                    for i in self.entries_of(agent, &list) {
                        self.entries[i].tasks = records(agent).task_progress(&self.roots, &list);
                    }
                    visible |= self
                        .registry
                        .values()
                        .any(|l| l.agent == agent && l.file.session_id == list);
                }
            } else if self.names_projects(p) {
                self.load_projects();
            } else if let Some(agent) = self.classify(p) {
                visible |= self.add_new(agent, p);
            } else if let Some((agent, parent)) = self.subagent_parent(p) {
                visible |= self.add_subagent(agent, p, &parent);
            } else if p.is_dir() && self.under_roots(p) {
                let mut found = Vec::new();
                walk(p, 0, &mut found, &|f| is_jsonl(f));
                for f in found {
                    if self.by_path.contains_key(&f) || self.subagent_paths.contains_key(&f) {
                        continue;
                    }
                    if let Some(agent) = self.classify(&f) {
                        visible |= self.add_new(agent, &f);
                    } else if let Some((agent, parent)) = self.subagent_parent(&f) {
                        visible |= self.add_subagent(agent, &f, &parent);
                    }
                }
            }
            // A plan file: its entries' plans are resolved again below.
        }
        for &i in &touched {
            let mut e = std::mem::replace(&mut self.entries[i], placeholder());
            if !e.deleted {
                self.refresh_plan(&mut e);
            }
            self.entries[i] = e;
        }
        for (i, old) in before {
            let e = &self.entries[i];
            let new = (!e.deleted).then(|| self.summary(e, now));
            visible |= new != old;
        }
        visible
    }

    /// The entries of `agent`'s session `session_id`.
    fn entries_of(&self, agent: Agent, session_id: &str) -> Vec<usize> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.agent == agent && e.key == session_id)
            .map(|(i, _)| i)
            .collect()
    }

    /// The agent whose registry of running CLIs `p` is an entry of.
    fn registry_of(&self, p: &Path) -> Option<Agent> {
        agents::all().iter().map(|d| d.agent).find(|&a| {
            records(a)
                .registry_dir(&self.roots)
                .is_some_and(|dir| p.parent() == Some(dir.as_path()))
        })
    }

    /// The agent whose task lists `p` is in, and the list (its first folder below them).
    fn task_list_of(&self, p: &Path) -> Option<(Agent, Option<String>)> {
        agents::all().iter().find_map(|d| {
            let root = records(d.agent).tasks_dir(&self.roots)?;
            let rest = p.strip_prefix(&root).ok()?;
            let list = rest
                .components()
                .next()
                .and_then(|c| c.as_os_str().to_str())
                .map(str::to_owned);
            Some((d.agent, list))
        })
    }

    /// Whether a change to `p` changes an agent's registry of project folders.
    fn names_projects(&self, p: &Path) -> bool {
        agents::all()
            .iter()
            .any(|d| records(d.agent).names_projects(&self.roots, p))
    }

    fn under_roots(&self, p: &Path) -> bool {
        agents::all()
            .iter()
            .any(|d| p.starts_with((d.root)(&self.roots)))
    }

    /// The agent and session transcript a subagent transcript at `p` belongs to.
    fn subagent_parent(&self, p: &Path) -> Option<(Agent, PathBuf)> {
        agents::all().iter().find_map(|d| {
            records(d.agent)
                .subagent_parent(&self.roots, p)
                .map(|t| (d.agent, t))
        })
    }

    fn add_subagent(&mut self, agent: Agent, p: &Path, transcript: &Path) -> bool {
        let Some(&i) = self.by_path.get(transcript) else {
            return false;
        };
        let e = &mut self.entries[i];
        let mut f = Follower::new(p);
        let facts = &mut e.facts;
        let before = facts.last_activity;
        let r = records(agent);
        let _ = f.read_tail(TAIL_WINDOWS[0], &mut |l| r.feed_subagent_line(facts, l));
        let changed = facts.last_activity != before;
        let j = e.subagents.len();
        e.subagents.push(f);
        self.subagent_paths.insert(p.to_owned(), (i, j));
        changed
    }

    fn add_new(&mut self, agent: Agent, p: &Path) -> bool {
        if !p.is_file() {
            return false;
        }
        let e = self.load(agent, p);
        if e.deleted {
            return false;
        }
        self.insert(e);
        true
    }

    /// Reads what was appended to entry `i`'s transcript.
    fn follow(&mut self, i: usize) {
        let e = &mut self.entries[i];
        let agent = e.agent;
        let facts = &mut e.facts;
        let progress = e.follower.read_new(&mut |l| feed(agent, facts, l));
        facts.unreadable += std::mem::take(&mut e.follower.splitter.overlong);
        match progress {
            Ok(Progress::Appended | Progress::Unchanged) => {
                if e.deleted {
                    e.deleted = false;
                }
                e.key = session_key(agent, &e.follower.path, &e.facts);
            }
            Ok(Progress::Replaced) => {
                let mut e = std::mem::replace(&mut self.entries[i], placeholder());
                self.reload(&mut e);
                // The reload found the subagent transcripts afresh: point their paths at them.
                self.subagent_paths.retain(|_, (k, _)| *k != i);
                for (j, sub) in e.subagents.iter().enumerate() {
                    self.subagent_paths.insert(sub.path.clone(), (i, j));
                }
                self.entries[i] = e;
            }
            Ok(Progress::Missing) | Err(_) => e.deleted = true,
        }
    }
}

/// The id an entry is listed under ([`records::Records::session_key`]): Claude Code's transcript
/// name; the others' session id from the file's own records (Codex's `session_meta`), else the
/// file's name until those are read. Codex CLI 0.171 creates its rollout empty and writes
/// `session_meta` a moment later: an entry first read then takes its id once the record is
/// appended (issue 34).
fn session_key(agent: Agent, path: &Path, facts: &Facts) -> String {
    records(agent).session_key(path, facts)
}

fn placeholder() -> Entry {
    Entry {
        agent: Agent::Other,
        key: String::new(),
        follower: Follower::new(Path::new("")),
        facts: Facts::default(),
        subagents: Vec::new(),
        deleted: true,
        tasks: None,
        plan: None,
    }
}

fn rank(s: SessionState) -> u8 {
    match s {
        SessionState::WaitingForApproval => 0,
        SessionState::WaitingForInput => 1,
        SessionState::Crashed => 2,
        SessionState::Working => 3,
        SessionState::Idle => 4,
        SessionState::Unknown => 5,
        SessionState::Ended => 6,
    }
}

/// The one order of sessions, wherever they are shown: those that need the person first (a plan
/// to approve, a question), then a crash, then working, idle, unknown, and ended last; newest
/// first within each. The window only lifts the sessions the person pinned above the rest.
pub fn sort(out: &mut [SessionSummary]) {
    out.sort_by(|a, b| {
        rank(a.state)
            .cmp(&rank(b.state))
            .then_with(|| b.last_activity.cmp(&a.last_activity))
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
}
