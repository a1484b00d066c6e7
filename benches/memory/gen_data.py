#!/usr/bin/env python3
"""Writes the memory benchmark's data set into a fresh $HOME: 500 plans (450 Claude Code plans in
~/.claude/plans, 50 Gemini CLI plans in ~/.gemini/tmp/<project>/<session>/plans) and 200 sessions
(190 Claude Code transcripts in ~/.claude/projects/<mangled cwd>/<uuid>.jsonl, 10 Gemini CLI chats),
in the record shapes of tests/fixtures (Claude Code 2.1.328, Gemini CLI 0.61.0).

Sizes are those of real use: plans 2-12 KB of markdown (headings, lists, tables, code), transcripts
20 KB to 3 MB (log-uniform, ~110 MB in all) of user prompts, assistant text, tool calls and their
results. Usage: gen_data.py HOME. Deterministic (fixed seed); modification times spread over 30 days.
"""
import json, os, random, sys, time, uuid

home = sys.argv[1]
rng = random.Random(42)
now = time.time()
WORDS = ("plan cursor pagination handler request response cache index query migration table column "
         "worker queue retry timeout token budget config parser reader writer stream buffer event "
         "session window sidebar badge review approve reject diff render sanitize commit branch").split()

def words(n):
    return " ".join(rng.choice(WORDS) for _ in range(n))

def uid():
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))

def stamp(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".000Z"

def plan_text(title, target):
    out = [f"# Plan: {title}\n", "## Context\n", words(60) + ".\n", "## Steps\n"]
    i = 1
    while sum(map(len, out)) < target:
        kind = rng.random()
        if kind < 0.55:
            out.append(f"{i}. {words(rng.randint(8, 25))} in `src/{rng.choice(WORDS)}.rs`.")
            i += 1
        elif kind < 0.7:
            out.append("\n| risk | mitigation |\n|---|---|\n" + "".join(f"| {words(4)} | {words(7)} |\n" for _ in range(3)))
        elif kind < 0.85:
            out.append("\n```rust\nfn %s(x: &str) -> Result<(), Error> {\n    // %s\n    Ok(())\n}\n```\n" % (rng.choice(WORDS), words(10)))
        else:
            out.append(f"\n## {words(3).capitalize()}\n\n- [ ] {words(8)}\n- [x] {words(6)}\n")
    return "\n".join(out) + "\n"

def put(path, text, mtime):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.utime(path, (mtime, mtime))

# Claude Code plans: slug-style names, as the CLI writes them.
claude = os.path.join(home, ".claude")
slugs = []
for n in range(450):
    slug = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{rng.choice(WORDS)}-{n:03d}"
    slugs.append(slug)
    put(os.path.join(claude, "plans", slug + ".md"), plan_text(words(5), rng.randint(2000, 12000)), now - rng.uniform(0, 30 * 86400))

projects = [f"{home}/work/project-{i:02d}" for i in range(20)]
for p in projects:
    os.makedirs(p, exist_ok=True)

def mangle(cwd):
    return "".join(c if c.isalnum() else "-" for c in cwd)

# Claude Code transcripts.
for n in range(190):
    sid, cwd = uid(), rng.choice(projects)
    slug = slugs[n]
    target = int(10 ** rng.uniform(4.3, 6.48))  # 20 KB .. 3 MB
    t = now - rng.uniform(3600, 30 * 86400)
    common = {"userType": "external", "entrypoint": "cli", "cwd": cwd, "sessionId": sid, "version": "2.1.328",
              "gitBranch": "main", "slug": slug}
    lines = [{"type": "mode", "mode": "normal", "sessionId": sid},
             {"type": "permission-mode", "permissionMode": "plan", "sessionId": sid}]
    size, parent, k = 0, None, 0
    while size < target:
        t += rng.uniform(1, 40)
        u = uid()
        kind = k % 4
        if kind == 0:
            rec = {"parentUuid": parent, "isSidechain": False, "promptId": uid(), "type": "user",
                   "message": {"role": "user", "content": words(rng.randint(5, 60))}, "permissionMode": "plan"}
        elif kind == 1:
            rec = {"parentUuid": parent, "isSidechain": False, "type": "assistant",
                   "message": {"id": "msg_" + u[:20], "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                               "content": [{"type": "text", "text": words(rng.randint(20, 300))}],
                               "stop_reason": "end_turn", "usage": {"input_tokens": 1200, "output_tokens": 300}}}
        elif kind == 2:
            tool = "toolu_" + u.replace("-", "")[:20]
            last_tool = tool
            rec = {"parentUuid": parent, "isSidechain": False, "type": "assistant",
                   "message": {"id": "msg_" + u[:20], "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                               "content": [{"type": "tool_use", "id": tool, "name": rng.choice(["Read", "Grep", "Bash", "Edit"]),
                                            "input": {"file_path": f"{cwd}/src/{rng.choice(WORDS)}.rs"}}],
                               "stop_reason": "tool_use", "usage": {"input_tokens": 1500, "output_tokens": 80}}}
        else:
            body = "\n".join(f"{i:>5}\t{words(rng.randint(3, 14))}" for i in range(rng.randint(20, 400)))
            rec = {"parentUuid": parent, "isSidechain": False, "promptId": uid(), "type": "user",
                   "message": {"role": "user", "content": [{"tool_use_id": last_tool, "type": "tool_result", "content": body}]},
                   "toolUseResult": {"type": "text", "file": {"filePath": f"{cwd}/src/x.rs", "numLines": 10}}}
        rec.update(common, uuid=u, timestamp=stamp(t))
        line = json.dumps(rec)
        lines.append(line)
        size += len(line) + 1
        parent, k = u, k + 1
    # Every session ends with its plan sent for approval and answered (approved or rejected).
    plan = os.path.join(claude, "plans", slug + ".md")
    tool = "toolu_" + uid().replace("-", "")[:20]
    a = {"parentUuid": parent, "isSidechain": False, "type": "assistant",
         "message": {"role": "assistant", "model": "claude-opus-5-5", "stop_reason": "tool_use",
                     "content": [{"type": "tool_use", "id": tool, "name": "ExitPlanMode", "input": {"plan": open(plan).read(), "planFilePath": plan}}]}}
    a.update(common, uuid=uid(), timestamp=stamp(t + 5))
    r = {"parentUuid": a["uuid"], "isSidechain": False, "type": "user",
         "message": {"role": "user", "content": [{"tool_use_id": tool, "type": "tool_result",
                     "content": "User has approved your plan." if n % 3 else "The user doesn't want to proceed with this tool use.", "is_error": n % 3 == 0}]}}
    r.update(common, uuid=uid(), timestamp=stamp(t + 30))
    lines += [a, r, {"type": "last-prompt", "lastPrompt": words(4), "leafUuid": r["uuid"], "sessionId": sid}]
    text = "".join((l if isinstance(l, str) else json.dumps(l)) + "\n" for l in lines)
    put(os.path.join(claude, "projects", mangle(cwd), sid + ".jsonl"), text, t + 30)

# Gemini CLI: 10 chats in 5 projects, each session with 5 plans.
gemini = os.path.join(home, ".gemini")
gprojects = {}
for n in range(10):
    name = f"gem-{n % 5}"
    cwd = f"{home}/work/{name}"
    os.makedirs(cwd, exist_ok=True)
    gprojects[cwd] = name
    tmp = os.path.join(gemini, "tmp", name)
    put(os.path.join(tmp, ".project_root"), cwd, now - 86400)
    sid = uid()
    t = now - rng.uniform(3600, 30 * 86400)
    for p in range(5):
        put(os.path.join(tmp, sid, "plans", f"plan-{p}.md"), plan_text(words(4), rng.randint(2000, 12000)), t + p)
    recs = [{"sessionId": sid, "projectHash": "%064x" % rng.getrandbits(256), "startTime": stamp(t), "lastUpdated": stamp(t), "kind": "main"}]
    for m in range(rng.randint(20, 200)):
        t += rng.uniform(1, 40)
        if m % 2 == 0:
            recs.append({"id": uid(), "timestamp": stamp(t), "type": "user", "content": [{"text": words(rng.randint(5, 60))}]})
        else:
            recs.append({"id": uid(), "timestamp": stamp(t), "type": "gemini", "content": words(rng.randint(20, 300)),
                         "model": "gemini-3.1-pro", "tokens": {"input": 10, "output": 10, "total": 20}})
        recs.append({"$set": {"lastUpdated": stamp(t)}})
    recs.append({"id": uid(), "timestamp": stamp(t + 5), "type": "gemini", "content": "", "model": "gemini-3.1-pro",
                 "toolCalls": [{"id": "exit_plan_mode__" + sid[:8], "name": "exit_plan_mode", "args": {"plan_filename": "plan-4.md"}}]})
    put(os.path.join(tmp, "chats", f"session-{time.strftime('%Y-%m-%dT%H-%M', time.gmtime(t))}-{sid[:8]}.jsonl"),
        "".join(json.dumps(r) + "\n" for r in recs), t + 5)
put(os.path.join(gemini, "projects.json"), json.dumps({"projects": gprojects}, indent=2), now - 86400)
print(f"wrote 500 plans and 200 sessions under {home}", file=sys.stderr)
