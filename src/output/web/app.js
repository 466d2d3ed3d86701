// git t3 review: the page. Data comes from the JSON API, whose shapes are
// `git t3 --json` output; every text from it goes in through textContent.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const initial = JSON.parse($("t3-initial").textContent || "{}");
  // The turns as last drawn (JSON), to tell when new ones came in.
  let lastTurns = null;
  const csrf = (document.querySelector('meta[name="t3-csrf"]') || {}).content || "";
  const STATUS_FOR = 30; // threads whose latest turn's status is looked up
  const FOLD_LINES = 400; // files with more patch lines start folded
  const state = {
    threads: [], thread: null, turns: [], turn: null, mode: "latest",
    split: false, ws: true, files: [], next: null, query: null, current: -1, loading: 0,
  };

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  }

  function busy(delta) {
    state.loading += delta;
    document.body.dataset.loading = state.loading > 0 ? "1" : "0";
  }

  async function api(path, opts) {
    busy(1);
    try {
      let r;
      try {
        r = await fetch(path, Object.assign({ credentials: "same-origin" }, opts || {}));
      } catch (_) {
        // The server is gone (stopped, idle timeout) or unreachable.
        throw new Error("git t3 review is not answering (it stopped, or went idle): run `git t3 review` again and open its new URL.");
      }
      let body = null;
      try { body = await r.json(); } catch (_) { body = null; }
      if (!r.ok) {
        const msg = body && body.error ? body.error.message : "HTTP " + r.status;
        const err = new Error(msg);
        err.status = r.status;
        throw err;
      }
      return body;
    } finally {
      busy(-1);
    }
  }

  function showError(msg) {
    const e = $("error");
    if (!msg) { e.hidden = true; e.textContent = ""; return; }
    e.hidden = false;
    e.textContent = msg;
  }

  function ago(iso) {
    if (!iso) return "";
    const t = Date.parse(iso);
    if (isNaN(t)) return iso;
    const s = Math.max(0, (Date.now() - t) / 1000);
    const units = [[86400 * 365, "year"], [86400 * 30, "month"], [86400 * 7, "week"], [86400, "day"], [3600, "hour"], [60, "minute"]];
    for (const [n, name] of units) {
      if (s >= n) { const k = Math.floor(s / n); return k + " " + name + (k === 1 ? "" : "s") + " ago"; }
    }
    return "just now";
  }

  // --- threads -----------------------------------------------------------
  function renderThreads() {
    const ul = $("threads");
    ul.textContent = "";
    if (!state.threads.length) {
      ul.append(el("li", { class: "muted", text: "No threads yet: git t3 capture --thread ID records one." }));
    }
    state.threads.forEach((t, i) => {
      const where = [t.worktree, t.branch].filter(Boolean).join(" · ");
      const b = el("button", {
        type: "button", class: "thread", "data-thread": t.thread, "data-index": i,
        "aria-current": t.thread === state.thread ? "true" : "false",
        onclick: () => selectThread(t.thread),
      },
        el("span", { class: "t-title", text: t.title || t.thread }),
        el("span", { class: "t-meta", text: (t.title ? t.thread + " · " : "") + (t.agent || "agent unknown") }),
        where ? el("span", { class: "t-meta", text: where }) : null,
        el("span", { class: "t-meta" },
          el("span", { text: ago(t.updated_at) + " · " + t.turns + " turn" + (t.turns === 1 ? "" : "s") + " " }),
          el("span", { class: "badge status", "data-status-for": t.thread, text: t._status || "…" })));
      ul.append(el("li", {}, b));
    });
  }

  // A thread's turns. Its id goes in the query, escaped like any data: as
  // a path segment, "." or ".." (escaped or not) would be resolved away by
  // the browser before the request is sent.
  function turnsPath(id) {
    return "api/turns?" + new URLSearchParams({ thread: id }).toString();
  }

  async function loadStatuses() {
    for (const t of state.threads.slice(0, STATUS_FOR)) {
      try {
        const r = await api(turnsPath(t.thread));
        const latest = r.turns.length ? r.turns[r.turns.length - 1] : null;
        t._status = r.revert_in_progress ? "revert in progress" : latest ? latest.status : "empty";
      } catch (e) {
        t._status = "error";
      }
      const badge = document.querySelector('[data-status-for="' + CSS.escape(t.thread) + '"]');
      if (badge) { badge.textContent = t._status; badge.className = "badge status " + t._status.split(" ")[0]; }
    }
  }

  async function selectThread(id, keepMode) {
    state.thread = id;
    state.turn = null;
    if (!keepMode || state.mode === "worktree" || state.mode === "branch") state.mode = "latest";
    renderThreads();
    try {
      const r = await api(turnsPath(id));
      state.turns = r.turns || [];
      lastTurns = JSON.stringify(state.turns);
      const info = [];
      if (r.revert_in_progress) info.push("A revert stopped half-way (step " + r.revert_in_progress.step + "): git t3 revert --continue or --abort.");
      for (const p of r.problems || []) info.push("Unreadable: " + p);
      $("thread-info").textContent = info.join("\n");
    } catch (e) {
      state.turns = [];
      showError(e.message);
    }
    renderTurns();
    await loadDiff();
  }

  /** "1 file", "2 files". */
  function plural(n, word) {
    return n + " " + word + (n === 1 ? "" : "s");
  }

  // --- turns -------------------------------------------------------------
  function renderTurns() {
    const ol = $("turns");
    ol.textContent = "";
    const shown = state.turns.slice().reverse();
    for (const cp of shown) {
      // The turn's figures as its diff counts them (the agent's own work,
      // whitespace-only changes left out); the note's record when unknown.
      const c = cp.counts || {
        files: cp.files.length,
        additions: cp.files.reduce((n, f) => n + (f.additions || 0), 0),
        deletions: cp.files.reduce((n, f) => n + (f.deletions || 0), 0),
      };
      const adds = c.additions, dels = c.deletions;
      const aside = [];
      if (c.user_edits) aside.push("+ " + plural(c.user_edits, "file") + " edited by you");
      if (c.whitespace_only) aside.push(plural(c.whitespace_only, "file") + " changed only in whitespace");
      const current = (state.mode === "turn" && state.turn === cp.turn) ||
        (state.mode === "latest" && shown.length && cp.turn === shown[0].turn);
      const b = el("button", {
        type: "button", class: "turn", "data-turn": cp.turn, "aria-current": current ? "true" : "false",
        onclick: () => selectTurn(cp.turn),
      },
        el("span", { class: "t-title" }, "Turn " + cp.turn + " ",
          el("span", { class: "badge " + (cp.placeholder ? "placeholder" : cp.status), text: cp.placeholder ? "placeholder · " + cp.status : cp.status })),
        cp.title ? el("span", { class: "t-meta", text: cp.title }) : null,
        el("span", { class: "t-meta" },
          plural(c.files, "file") + " ",
          el("span", { class: "add", text: "+" + adds }), " ",
          el("span", { class: "del", text: "-" + dels }),
          " · " + ago(cp.completed_at)),
        aside.length ? el("span", { class: "t-meta muted", text: aside.join(", ") }) : null,
        (cp.warnings || []).length ? el("span", { class: "t-meta badge error", text: cp.warnings.join("; ") }) : null);
      ol.append(el("li", {}, b));
    }
    if (!shown.length && state.thread) ol.append(el("li", { class: "muted", text: "No turns." }));
  }

  function selectTurn(n) {
    state.turn = n;
    state.mode = "turn";
    renderTurns();
    loadDiff();
  }

  // --- diff --------------------------------------------------------------
  function query() {
    const q = new URLSearchParams();
    const m = state.mode;
    if (m === "latest" || m === "turn" || m === "full") {
      if (!state.thread) return null;
      q.set("mode", m === "full" ? "full" : "turn");
      q.set("thread", state.thread);
      if (m === "turn" && state.turn !== null) q.set("turn", String(state.turn));
    } else {
      q.set("mode", m);
    }
    q.set("ws", state.ws ? "1" : "0");
    return q;
  }

  /** The URL's fragment names what is shown (thread, mode, turn, file),
   * so a link opens the same view: `#thread=…&mode=turn&turn=2&file=…`. */
  function saveLocation(file) {
    const h = new URLSearchParams();
    if (state.thread) h.set("thread", state.thread);
    h.set("mode", state.mode);
    if (state.mode === "turn" && state.turn !== null) h.set("turn", String(state.turn));
    if (file) h.set("file", file);
    history.replaceState(null, "", "#" + h.toString());
  }

  function describe(d) {
    const m = state.mode;
    if (m === "worktree") return "The live worktree against HEAD.";
    if (m === "branch") return "HEAD (" + d.to + ") against its merge base " + d.from + ".";
    if (m === "full") return "The whole thread: turn " + d.from_turn + " to turn " + d.to_turn + ".";
    let s = "Turn " + d.to_turn + " against " + (d.pre_turn_tree ? "the worktree at its prompt" : "turn " + d.from_turn) + ".";
    if (d.user_edits) s += " You changed " + d.user_edits + " file(s) between turns (not shown).";
    return s;
  }

  async function loadDiff() {
    document.querySelectorAll(".modes button").forEach((b) => b.classList.toggle("active", b.dataset.mode === state.mode));
    $("view-unified").setAttribute("aria-pressed", String(!state.split));
    $("view-split").setAttribute("aria-pressed", String(state.split));
    const q = query();
    $("files").textContent = "";
    $("diff").textContent = "";
    $("totals").textContent = "";
    $("more").hidden = true;
    $("revert").hidden = !(initial.revert && state.thread && state.mode === "turn" && state.turn !== null);
    state.files = [];
    state.current = -1;
    showError(null);
    if (!q) { $("diff-desc").textContent = "Pick a thread, or a live mode."; return; }
    state.query = q.toString();
    saveLocation(null);
    let d;
    try {
      d = await api("api/diff?" + state.query);
    } catch (e) {
      $("diff-desc").textContent = "";
      showError(e.message);
      return;
    }
    if (q.toString() !== state.query) return;
    state.files = d.files;
    const hidden = [];
    if (d.whitespace_only) hidden.push(plural(d.whitespace_only, "file") + " changed only in whitespace, not shown");
    if (d.user_edits) hidden.push(plural(d.user_edits, "file") + " edited by you between turns, not shown");
    $("diff-desc").textContent = describe(d) + (d.ignore_whitespace ? " Whitespace ignored." : "") +
      (hidden.length ? " (" + hidden.join("; ") + ")" : "");
    const t = $("totals");
    t.append(d.totals.files + " file" + (d.totals.files === 1 ? "" : "s") + " ",
      el("span", { class: "add", id: "total-add", text: "+" + d.totals.additions }), " ",
      el("span", { class: "del", id: "total-del", text: "-" + d.totals.deletions }));
    renderFiles(d.files);
    if (!d.files.length) { $("diff").append(el("p", { class: "muted", text: "No changes." })); return; }
    await loadPatch(0);
  }

  const KIND = { added: "A", deleted: "D", modified: "M", renamed: "R", copied: "C", type_changed: "T" };

  /** The folder of a path ("" at the top). */
  function folderOf(path) {
    const i = path.lastIndexOf("/");
    return i < 0 ? "" : path.slice(0, i + 1);
  }

  // The changed files as a tree: each folder (files sorted by path keep a
  // folder's files together) has a row with its files' counts.
  function renderFiles(files) {
    const ul = $("files");
    const folders = new Map();
    for (const f of files) {
      const k = folderOf(f.path);
      const c = folders.get(k) || { files: 0, additions: 0, deletions: 0 };
      c.files++; c.additions += f.additions || 0; c.deletions += f.deletions || 0;
      folders.set(k, c);
    }
    let folder = null;
    files.forEach((f, i) => {
      const k = folderOf(f.path);
      if (k !== folder && folders.size > 1) {
        folder = k;
        const c = folders.get(k);
        ul.append(el("li", { class: "dir", "data-dir": k },
          el("span", { class: "path", text: (k || "./") + " · " + plural(c.files, "file") }),
          el("span", { class: "counts" }, el("span", { class: "add", text: "+" + c.additions }), " ", el("span", { class: "del", text: "-" + c.deletions }))));
      }
      const name = f.old_path ? f.old_path + " → " + f.path : f.path;
      ul.append(el("li", { class: "file" + (folders.size > 1 ? " nested" : ""), "data-path": f.path, "data-kind": f.kind },
        el("span", { class: "kind " + f.kind, title: f.kind, text: KIND[f.kind] || "?" }),
        el("a", { href: "#file-" + i, class: "path", onclick: (ev) => { ev.preventDefault(); focusFile(i); }, text: name }),
        el("span", { class: "counts" }, f.binary ? el("span", { class: "muted", text: "binary" }) :
          el("span", {}, el("span", { class: "add", text: "+" + f.additions }), " ", el("span", { class: "del", text: "-" + f.deletions })))));
    });
  }

  async function loadPatch(start) {
    const q = state.query;
    let p;
    try {
      p = await api("api/patch?" + q + "&start=" + start);
    } catch (e) {
      showError(e.message);
      return;
    }
    if (q !== state.query) return;
    for (const f of p.files) $("diff").append(fileBlock(f));
    state.next = p.next;
    const more = $("more");
    more.hidden = p.next === null;
    if (p.next !== null) more.textContent = "Load more files (" + p.next + " of " + p.total + " shown)";
  }

  function fileBlock(pf) {
    const f = state.files[pf.index] || { path: "?", kind: "modified" };
    const parsed = parsePatch(pf.text, pf.words);
    const name = f.old_path ? f.old_path + " → " + f.path : f.path;
    const det = el("details", { class: "filediff", id: "file-" + pf.index, "data-path": f.path, "data-index": pf.index },
      el("summary", {}, el("span", { class: "kind " + f.kind, text: (KIND[f.kind] || "?") + " " }), name + "  ",
        f.binary ? el("span", { class: "muted", text: "binary" }) :
          el("span", { class: "counts" }, el("span", { class: "add", text: "+" + f.additions }), " ", el("span", { class: "del", text: "-" + f.deletions }))));
    if (parsed.lines <= FOLD_LINES) det.open = true;
    for (const m of parsed.meta) det.append(el("div", { class: "meta", text: m }));
    if (parsed.binary && IMAGE.test(f.path) && state.mode !== "worktree") det.append(imageDiff(f));
    else if (parsed.binary) det.append(el("div", { class: "note", text: "Binary file " + f.path + " (not shown)." }));
    if (parsed.hunks.length) det.append(state.split ? splitTable(parsed.hunks) : unifiedTable(parsed.hunks));
    else if (!parsed.binary) det.append(el("div", { class: "note", text: f.kind === "renamed" ? "Renamed, content unchanged." : "No line changes shown." }));
    if (pf.truncated_lines) det.append(el("div", { class: "note", text: pf.truncated_lines + " more lines not shown: see git t3 diff on the command line." }));
    return det;
  }

  const IMAGE = /\.(png|jpe?g|gif|svg|webp)$/i;

  /** An image's two sides, next to each other (one for an added or deleted file). */
  function imageDiff(f) {
    const src = (side, path) => "api/file?" + state.query + "&" + new URLSearchParams({ side, path }).toString();
    const box = el("div", { class: "imgdiff" });
    const add = (side, path, label) => box.append(el("figure", {},
      el("img", { src: src(side, path), alt: label + ": " + path, "data-side": side }),
      el("figcaption", { class: "muted", text: label })));
    if (f.kind !== "added") add("old", f.old_path || f.path, "before");
    if (f.kind !== "deleted") add("new", f.path, "after");
    return box;
  }

  // `words`: the changed words of each -/+ line, in order, from the server's
  // word diff (git's --color-words engine).
  function parsePatch(text, words) {
    const out = { meta: [], hunks: [], binary: false, lines: 0 };
    let h = null, o = 0, n = 0, k = 0;
    const marked = (row) => {
      const m = words ? words[k++] : undefined;
      if (m && m.length) row.words = segments(row.text, m);
      return row;
    };
    const lines = text.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    for (const line of lines) {
      if (!h && !line.startsWith("@@")) {
        if (line.startsWith("diff --git ") || line.startsWith("index ") || line.startsWith("--- ") || line.startsWith("+++ ")) continue;
        if (line.startsWith("Binary files ")) out.binary = true;
        else out.meta.push(line);
        continue;
      }
      if (line.startsWith("@@")) {
        const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/.exec(line);
        o = m ? +m[1] : 0; n = m ? +m[2] : 0;
        h = { header: line, rows: [] };
        out.hunks.push(h);
        continue;
      }
      out.lines++;
      const c = line[0], body = line.slice(1);
      if (c === "+") h.rows.push(marked({ t: "add", n: n++, text: body }));
      else if (c === "-") h.rows.push(marked({ t: "del", o: o++, text: body }));
      else if (c === "\\") h.rows.push({ t: "note", text: line });
      else h.rows.push({ t: "ctx", o: o++, n: n++, text: body });
    }
    return out;
  }

  // Column widths come from here: a table with a fixed layout would else
  // share them out by its first row, a hunk header spanning all four.
  function cols(kinds) { return el("colgroup", {}, ...kinds.map((k) => el("col", { class: k }))); }

  function td(cls, text) { return el("td", { class: cls, text: text === undefined ? "" : String(text) }); }

  // --- word-level highlights -----------------------------------------------
  // The server sends, for each changed line, the words `git diff
  // --color-words` marks (one word-diff engine, git's own rules).

  /** A line's text cut at `marks` ([start, end) pairs): [text, changed] pieces. */
  function segments(text, marks) {
    const out = [];
    let at = 0;
    for (const [s, e] of marks) {
      if (s > at) out.push([text.slice(at, s), false]);
      out.push([text.slice(s, e), true]);
      at = e;
    }
    if (at < text.length) out.push([text.slice(at), false]);
    return out;
  }

  /** A line's text cell, its changed words marked when it has them. */
  function textCell(cls, r) {
    if (!r.words) return td(cls, r.text);
    const c = el("td", { class: cls });
    for (const [w, changed] of r.words) c.append(changed ? el("span", { class: "wd", text: w }) : document.createTextNode(w));
    return c;
  }

  function unifiedTable(hunks) {
    const tb = el("tbody");
    for (const h of hunks) {
      tb.append(el("tr", { class: "hunk" }, el("td", { colspan: "4", text: h.header })));
      for (const r of h.rows) {
        const sign = r.t === "add" ? "+" : r.t === "del" ? "-" : " ";
        tb.append(el("tr", { class: r.t }, td("num", r.o), td("num", r.n), td("sign", r.t === "note" ? "" : sign), textCell("text", r)));
      }
    }
    return el("table", { class: "code unified" }, cols(["num", "num", "sign", "text"]), tb);
  }

  function splitTable(hunks) {
    const tb = el("tbody");
    for (const h of hunks) {
      tb.append(el("tr", { class: "hunk" }, el("td", { colspan: "4", text: h.header })));
      let dels = [], adds = [];
      const flush = () => {
        for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
          const d = dels[i], a = adds[i];
          tb.append(el("tr", { class: "pair" },
            d ? td("num l del", d.o) : td("num l empty"), d ? textCell("text l del", d) : td("text l empty"),
            a ? td("num r add", a.n) : td("num r empty"), a ? textCell("text r add", a) : td("text r empty")));
        }
        dels = []; adds = [];
      };
      for (const r of h.rows) {
        if (r.t === "del") { if (adds.length) flush(); dels.push(r); }
        else if (r.t === "add") adds.push(r);
        else {
          flush();
          if (r.t === "note") tb.append(el("tr", { class: "note" }, el("td", { colspan: "4", class: "muted", text: r.text })));
          else tb.append(el("tr", { class: "ctx" }, td("num l", r.o), td("text l", r.text), td("num r", r.n), td("text r", r.text)));
        }
      }
      flush();
    }
    return el("table", { class: "code split" }, cols(["num", "text", "num", "text"]), tb);
  }

  /** Scroll to the next (1) or previous (-1) hunk below the page's top. */
  function stepHunk(delta) {
    const hunks = [...document.querySelectorAll("#diff tr.hunk")];
    if (!hunks.length) return;
    const top = 60;
    const ys = hunks.map((h) => h.getBoundingClientRect().top);
    let i = delta > 0 ? ys.findIndex((y) => y > top + 1) : ys.map((y) => y < top - 1).lastIndexOf(true);
    if (i < 0) i = delta > 0 ? hunks.length - 1 : 0;
    const h = hunks[i];
    const det = h.closest("details");
    if (det) det.open = true;
    hunks.forEach((x) => x.classList.remove("current"));
    h.classList.add("current");
    h.scrollIntoView({ block: "start" });
    window.scrollBy(0, -top + 20);
  }

  function focusFile(i) {
    const blocks = document.querySelectorAll(".filediff");
    if (!blocks.length) return;
    i = Math.max(0, Math.min(i, state.files.length - 1));
    let b = $("file-" + i);
    if (!b) b = blocks[Math.min(i, blocks.length - 1)];
    blocks.forEach((x) => x.classList.remove("current"));
    b.classList.add("current");
    state.current = +b.dataset.index;
    const f = state.files[state.current];
    if (f) saveLocation(f.path);
    b.querySelector("summary").focus();
    b.scrollIntoView({ block: "start" });
  }

  // --- revert ------------------------------------------------------------
  function revertForm(dryRun) {
    return new URLSearchParams({
      thread: state.thread, to: String(state.turn),
      // The preview lists the files, the same whatever happens to the
      // conversation (which the real revert asks the provider about).
      files_only: dryRun || $("files-only").checked ? "1" : "0", dry_run: dryRun ? "1" : "0", csrf,
    }).toString();
  }

  /** The files a revert would change, as its dry run lists them. */
  function previewList(r) {
    const ul = $("confirm-files");
    ul.textContent = "";
    const files = r.files || { write: [], delete: [] };
    for (const p of files.write || []) ul.append(el("li", { text: "write  " + p }));
    for (const p of files.delete || []) ul.append(el("li", { text: "delete " + p }));
    for (const p of r.uncaptured || []) ul.append(el("li", { class: "warn", text: "no checkpoint holds " + p + " (kept in the safety checkpoint)" }));
    for (const o of r.others || []) ul.append(el("li", { class: "warn", text: "another thread's work: " + o.path }));
    if (!ul.children.length) ul.append(el("li", { class: "muted", text: "No file changes." }));
  }

  async function askRevert() {
    const d = $("confirm");
    $("confirm-text").textContent = "Put this worktree back to turn " + state.turn + " of thread " + state.thread + "? These files change:";
    try {
      const preview = await api("api/revert", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: revertForm(true) });
      previewList(preview);
    } catch (e) {
      showError("Could not preview the revert: " + e.message);
      return;
    }
    d.returnValue = "";
    d.showModal();
  }

  async function doRevert() {
    try {
      const r = await api("api/revert", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: revertForm(false) });
      showError(null);
      await refreshThreads();
      await selectThread(state.thread, false);
      const banner = $("thread-info");
      banner.textContent = "Reverted to turn " + (r.to_turn !== undefined ? r.to_turn : state.turn) + ". Undo it in Operations below, or with git t3 op undo.";
      document.body.dataset.reverted = "1";
      loadOps();
    } catch (e) {
      showError("Revert failed: " + e.message);
    }
  }

  // --- operations --------------------------------------------------------
  async function loadOps() {
    const ul = $("ops");
    let r;
    try {
      r = await api("api/ops");
    } catch (e) {
      showError("Could not read the operation log: " + e.message);
      return;
    }
    ul.textContent = "";
    for (const op of (r.ops || []).slice(0, 20)) {
      const what = op.kind + (op.thread ? " · " + op.thread : "") + " · " + ago(op.time);
      const li = el("li", { "data-op": op.id }, el("span", { text: what }));
      if (initial.revert && !op.undone) {
        li.append(" ", el("button", { type: "button", class: "undo", onclick: () => undoOp(op.id) }, "Undo"));
      }
      ul.append(li);
    }
    if (!ul.children.length) ul.append(el("li", { class: "muted", text: "No operations yet." }));
  }

  async function undoOp(id) {
    const body = new URLSearchParams({ op: id, csrf }).toString();
    try {
      await api("api/undo", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
      showError(null);
      await refreshThreads();
      if (state.thread) await selectThread(state.thread, false);
      $("thread-info").textContent = "Undid operation " + id.slice(0, 12) + ".";
      document.body.dataset.undone = "1";
      loadOps();
    } catch (e) {
      showError("Undo failed: " + e.message);
    }
  }

  async function refreshThreads() {
    try {
      const r = await api("api/threads");
      state.threads = r.threads || [];
      renderThreads();
      loadStatuses();
    } catch (e) {
      showError(e.message);
    }
  }

  // --- wiring ------------------------------------------------------------
  document.querySelectorAll(".modes button").forEach((b) => b.addEventListener("click", () => {
    const m = b.dataset.mode;
    if (m === "turn" && state.turn === null && state.turns.length) state.turn = state.turns[state.turns.length - 1].turn;
    state.mode = m;
    renderTurns();
    loadDiff();
  }));
  $("view-unified").addEventListener("click", () => { state.split = false; loadDiff(); });
  $("view-split").addEventListener("click", () => { state.split = true; loadDiff(); });
  $("ws").addEventListener("change", (e) => { state.ws = e.target.checked; loadDiff(); });
  $("more").addEventListener("click", () => { if (state.next !== null) loadPatch(state.next); });
  $("revert").addEventListener("click", askRevert);
  $("confirm").addEventListener("close", () => { if ($("confirm").returnValue === "yes") doRevert(); });
  $("help-toggle").addEventListener("click", () => {
    const h = $("help"); h.hidden = !h.hidden; $("help-toggle").setAttribute("aria-expanded", String(!h.hidden));
  });
  const themes = ["system", "light", "dark"];
  function setTheme(t) {
    if (t === "system") delete document.documentElement.dataset.theme; else document.documentElement.dataset.theme = t;
    $("theme").textContent = "Theme: " + t;
    try { localStorage.setItem("t3-theme", t); } catch (_) { /* private mode */ }
  }
  $("theme").addEventListener("click", () => {
    const now = document.documentElement.dataset.theme || "system";
    setTheme(themes[(themes.indexOf(now) + 1) % themes.length]);
  });
  try { const t = localStorage.getItem("t3-theme"); if (themes.includes(t)) setTheme(t); } catch (_) { /* none */ }

  function stepTurn(delta) {
    if (!state.turns.length) return;
    const turns = state.turns.map((t) => t.turn);
    let i = state.turn === null ? turns.length - 1 : turns.indexOf(state.turn);
    i = Math.max(0, Math.min(turns.length - 1, i + delta));
    selectTurn(turns[i]);
    const b = document.querySelector('#turns button[data-turn="' + turns[i] + '"]');
    if (b) b.focus();
  }
  function stepList(container, delta) {
    const items = Array.from(document.querySelectorAll(container + " button"));
    const i = items.indexOf(document.activeElement);
    if (i < 0) return false;
    const next = items[Math.max(0, Math.min(items.length - 1, i + delta))];
    next.focus();
    return true;
  }
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const tag = (e.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || $("confirm").open) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const d = e.key === "ArrowDown" ? 1 : -1;
      if (stepList("#threads", d) || stepList("#turns", d)) e.preventDefault();
      return;
    }
    switch (e.key) {
      case "j": focusFile(state.current + 1); break;
      case "k": focusFile(state.current - 1); break;
      case "n": stepHunk(1); break;
      case "p": stepHunk(-1); break;
      case "]": stepTurn(1); break;
      case "[": stepTurn(-1); break;
      case "o": { const b = $("file-" + state.current); if (b) b.open = !b.open; break; }
      case "u": state.split = !state.split; loadDiff(); break;
      case "w": $("ws").click(); break;
      case "t": { const b = document.querySelector('#threads button[aria-current="true"]') || document.querySelector("#threads button"); if (b) b.focus(); break; }
      case "?": $("help-toggle").click(); break;
      default: return;
    }
    e.preventDefault();
  });

  state.threads = (initial.threads && initial.threads.threads) || [];
  renderThreads();
  busy(0);
  // A bookmarked view (see saveLocation), else the page's thread.
  const want = new URLSearchParams(location.hash.slice(1));
  const first = want.get("thread") || initial.thread || (state.threads[0] && state.threads[0].thread);
  (async () => {
    if (first) await selectThread(first); else await loadDiff();
    const mode = want.get("mode");
    if (mode && mode !== state.mode && ["turn", "full", "worktree", "branch", "latest"].includes(mode)) {
      state.mode = mode;
      if (mode === "turn") state.turn = want.has("turn") ? +want.get("turn") : null;
      renderTurns();
      await loadDiff();
    } else if (mode === "turn" && want.has("turn")) {
      state.turn = +want.get("turn");
      renderTurns();
      await loadDiff();
    }
    const file = want.get("file");
    const i = file ? state.files.findIndex((f) => f.path === file) : -1;
    if (i >= 0) focusFile(i);
    document.body.dataset.located = "1";
  })();
  loadStatuses();
  loadOps();

  // --- live refresh --------------------------------------------------------
  // While the agent works, new turns appear without a reload. Every few
  // seconds the page asks for the list of threads (a few notes per thread,
  // no diff); only when the shown thread's row changed are its turns (each
  // counted by a diff) asked for, and drawn again when they changed (the
  // diff too when it shows the latest turn); the scroll position stays.
  const getJson = (path) => fetch(path, { credentials: "same-origin" }).then((x) => x.ok ? x.json() : null);
  let lastRow = null;
  async function poll() {
    if (!state.thread || document.hidden) return;
    let r;
    try {
      const threads = await getJson("api/threads");
      if (!threads) return;
      const row = JSON.stringify((threads.threads || []).find((t) => t.thread === state.thread) || null);
      if (row === lastRow) return;
      lastRow = row;
      r = await getJson(turnsPath(state.thread));
    } catch (_) {
      return;
    }
    if (!r) return;
    const now = JSON.stringify(r.turns || []);
    if (now !== lastTurns) {
      const y = window.scrollY;
      state.turns = r.turns || [];
      renderTurns();
      document.body.dataset.refreshed = String(+(document.body.dataset.refreshed || 0) + 1);
      if (state.mode === "latest") await loadDiff();
      loadOps();
      window.scrollTo(0, y);
    }
    lastTurns = now;
  }
  setInterval(poll, 2000);
})();
