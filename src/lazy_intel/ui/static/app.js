/* lazy-intel ui: the page's logic. Every request carries the run's token; all text from the
 * repository reaches the DOM through textContent (never markup). State lives in `ui` and is
 * exposed as window.lazyIntelUI for the browser tests. */
(function () {
  "use strict";
  const G = window.lazyIntelGraphs;
  const token = document.querySelector('meta[name="lazy-intel-token"]').content;
  const $ = function (id) { return document.getElementById(id); };

  const ui = {
    generation: 0, publishedAt: null, view: "packages", scope: null, picture: null,
    packages: null, symbols: null, symbol: null, mode: "calls", query: null, results: null,
    source: null, reloads: 0, events: 0,
  };
  window.lazyIntelUI = ui;

  function url(path, params) {
    const q = new URLSearchParams();
    Object.keys(params || {}).forEach(function (k) {
      if (params[k] !== null && params[k] !== undefined && params[k] !== "") q.set(k, params[k]);
    });
    q.set("token", token);
    return path + "?" + q.toString();
  }

  async function api(path, params) {
    const response = await fetch(url(path, params), { headers: { "X-Lazy-Intel-Token": token } });
    const body = await response.json().catch(function () { return { status: "error", message: response.statusText }; });
    if (!response.ok && body.status !== "error") body.status = "error";
    return body;
  }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "onclick") node.addEventListener("click", attrs[k]);
      else if (k === "className") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }

  function side(children) {
    const box = $("side-content");
    box.replaceChildren.apply(box, children.filter(Boolean));
  }

  function toast(text) {
    const t = $("toast");
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(function () { t.hidden = true; }, 2500);
  }

  function errorBox(answer) {
    return el("p", { className: "error", text: (answer.code ? answer.code + ": " : "") + (answer.message || "failed") },
      [answer.next_step ? el("span", { className: "muted", text: " — " + answer.next_step }) : null]);
  }

  function loc(anchorLike, label) {
    return el("a", { className: "loc", href: "#", text: label || (anchorLike.path + ":" + (anchorLike.start_line || anchorLike.line || 1)),
      onclick: function (ev) { ev.preventDefault(); openAnchor(anchorLike); } });
  }

  function setGeneration(generation, publishedAt) {
    ui.generation = generation;
    ui.publishedAt = publishedAt;
    const g = $("generation");
    g.dataset.generation = String(generation);
    g.textContent = generation ? "generation " + generation + (publishedAt ? " · " + publishedAt : "") : "no view yet";
  }

  /* ---- packages ---------------------------------------------------------------------------- */

  async function showPackages(scope) {
    ui.view = "packages";
    ui.scope = scope || null;
    $("mode-switch").hidden = true;
    $("crumb-symbol").textContent = "";
    $("crumb-scope").textContent = ui.scope ? "› " + ui.scope : "";
    $("graph-status").textContent = "loading…";
    const answer = await api("/api/architecture", { path: ui.scope });
    $("graph-status").textContent = "";
    if (answer.status === "error") {
      $("graph").replaceChildren(errorBox(answer));
      side([errorBox(answer)]);
      return;
    }
    ui.picture = answer.picture;
    if (ui.symbols) { ui.symbols.network.destroy(); ui.symbols = null; }
    if (ui.packages) ui.packages.network.destroy();
    $("graph").replaceChildren();
    ui.packages = G.drawPackages($("graph"), ui.picture, {
      onNode: function (id) { packageDetails(id); },
      onEdge: function (id) { edgeDetails(id); },
      onNothing: function () { overview(); },
      onOpen: function (id) { showPackages(id); },
    });
    $("graph-note").textContent = notes(ui.picture);
    overview();
  }

  function notes(picture) {
    const lines = [];
    lines.push(picture.nodes.length + " of " + picture.package_count + " packages, " + picture.edges.length +
      " dependencies, " + picture.package_cycles.length + " package cycle(s) · arrows point to what a package depends on; red: a cycle");
    picture.coverage.filter(function (c) { return /data shows|packages are/.test(c); }).forEach(function (c) { lines.push(c); });
    return lines.join(" · ");
  }

  function symbolRow(s, rank) {
    return el("li", { "data-symbol": s.qualified_name || "" }, [
      s.qualified_name ? el("a", { className: "sym", href: "#", text: s.qualified_name,
        onclick: function (ev) { ev.preventDefault(); showSymbol(s.qualified_name, s.path); } }) : el("span", { text: s.text }),
      el("span", { className: "muted", text: " " + (s.symbol_kind || "") + " " }),
      loc({ path: s.path, sha256: s.sha256, start_line: s.start_line, end_line: s.end_line }),
    ]);
  }

  function overview() {
    const p = ui.picture;
    if (!p) return;
    side([
      el("h2", { text: "Central symbols (PageRank)" }),
      p.central.length ? el("ol", { id: "central-list" }, p.central.map(symbolRow)) : el("p", { className: "muted", text: "none" }),
      p.entry_points.length ? el("h2", { text: "Entry points" }) : null,
      p.entry_points.length ? el("ul", {}, p.entry_points.map(function (s) {
        return el("li", {}, [loc(s, s.text)]);
      })) : null,
      p.hotspots && p.hotspots.length ? el("h2", { text: "Hotspots (commits x size)" }) : null,
      p.hotspots && p.hotspots.length ? el("ul", { id: "hotspot-list" }, p.hotspots.map(function (s) {
        return el("li", {}, [loc(s, s.qualified_name || s.path), el("span", { className: "muted", text: " " + s.text })]);
      })) : null,
      el("h2", { text: "Package cycles" }),
      p.package_cycles.length ? el("ul", { id: "cycle-list" }, p.package_cycles.map(function (c) {
        return el("li", { className: "cycle" }, [el("a", { className: "sym cycle", href: "#", text: c.join(" ⇄ "),
          onclick: function (ev) { ev.preventDefault(); ui.packages.network.selectNodes(c); } })]);
      })) : el("p", { className: "muted", text: "none" }),
      p.import_cycles.length ? el("h2", { text: "File import cycles" }) : null,
      p.import_cycles.length ? el("ul", {}, p.import_cycles.map(function (c) { return el("li", { className: "cycle", text: c.join(" ⇄ ") }); })) : null,
      el("h2", { text: "Coverage" }),
      el("ul", {}, p.coverage.map(function (c) { return el("li", { className: "muted", text: c }); })),
    ]);
  }

  function packageDetails(id) {
    const p = ui.picture;
    const node = p.nodes.find(function (n) { return n.id === id; });
    if (!node) return;
    const out = p.edges.filter(function (e) { return e.from === id; });
    const inc = p.edges.filter(function (e) { return e.to === id; });
    const inside = p.central.filter(function (s) { return s.path.slice(0, s.path.lastIndexOf("/")) === id || (id === "." && s.path.indexOf("/") < 0); });
    const langs = Object.keys(node.languages).map(function (k) { return k + " " + node.languages[k]; }).join(", ");
    const edgeItem = function (e, other) {
      return el("li", { className: e.in_cycle ? "cycle" : "" }, [el("span", { text: other + " " }),
        el("span", { className: "muted", text: Object.keys(e.counts).map(function (k) { return e.counts[k] + " " + k; }).join(", ") + (e.guessed ? " (guessed)" : "") })]);
    };
    side([
      el("h2", { id: "package-title", text: id }),
      el("dl", { className: "kv" }, [el("dt", { text: "files" }), el("dd", { text: String(node.files) }),
        el("dt", { text: "languages" }), el("dd", { text: langs || "–" }),
        el("dt", { text: "layer" }), el("dd", { text: String(node.layer) }),
        el("dt", { text: "cycle" }), el("dd", { text: node.cycle === null ? "none" : p.package_cycles[node.cycle].join(" ⇄ ") })]),
      el("div", { className: "actions" }, [el("button", { type: "button", text: "Zoom into " + id, onclick: function () { showPackages(id); } }),
        el("button", { type: "button", text: "Back to overview", onclick: overview })]),
      el("h2", { text: "Depends on (" + out.length + ")" }), el("ul", {}, out.map(function (e) { return edgeItem(e, e.to); })),
      el("h2", { text: "Used by (" + inc.length + ")" }), el("ul", {}, inc.map(function (e) { return edgeItem(e, e.from); })),
      inside.length ? el("h2", { text: "Central symbols here" }) : null,
      inside.length ? el("ol", {}, inside.map(symbolRow)) : null,
    ]);
  }

  function edgeDetails(id) {
    const e = ui.picture.edges.find(function (x) { return x.from + "\u0000" + x.to === id; });
    if (!e) return;
    side([el("h2", { text: e.from + " → " + e.to }), el("p", { text: e.summary }),
      el("p", { className: "muted", text: e.in_cycle ? "part of a package cycle" : (e.guessed ? "guessed (unresolved) uses only" : "resolved edges") }),
      el("button", { type: "button", text: "Back to overview", onclick: overview })]);
  }

  /* ---- symbols ----------------------------------------------------------------------------- */

  async function showSymbol(name, path, mode) {
    ui.view = "symbol";
    ui.symbol = { name: name, path: path || null };
    ui.mode = mode || ui.mode || "calls";
    document.querySelector('input[name="mode"][value="' + ui.mode + '"]').checked = true;
    $("mode-switch").hidden = false;
    $("crumb-scope").textContent = "";
    $("crumb-symbol").textContent = "› " + name;
    $("graph-status").textContent = "loading…";
    const graph = await api("/api/graph", { symbol: name, path: path, mode: ui.mode });
    $("graph-status").textContent = "";
    if (graph.status === "error") { side([errorBox(graph)]); return; }
    if (ui.packages) { ui.packages.network.destroy(); ui.packages = null; }
    if (ui.symbols) ui.symbols.network.destroy();
    $("graph").replaceChildren();
    ui.symbols = G.drawSymbols($("graph"), graph, {
      onNode: function (n) { nodeDetails(n); openNode(n); },
      onEdge: function (e) { edgeSite(e); },
      onNothing: function () {},
      onExpand: function (n) { expand(n); },
    });
    ui.symbols.graph = graph;
    $("graph-note").textContent = graphNote(graph);
    const target = graph.nodes.find(function (n) { return n.role === "target"; });
    if (target) nodeDetails(target);
  }

  function graphNote(graph) {
    const lines = [(graph.mode === "calls" ? "callers ← target → callees" : "dependents ← target") +
      " · double-click a node to expand it · click a node for its source"];
    if (graph.more) lines.push("more results exist than shown (the answer was paged)");
    return lines.concat(graph.coverage.filter(function (c) { return /depth|unresolved/.test(c); })).join(" · ");
  }

  async function expand(n) {
    if (!n.resolved) return;
    $("graph-status").textContent = "expanding " + n.name + "…";
    const graph = await api("/api/graph", { symbol: n.name, path: n.path, mode: ui.mode });
    $("graph-status").textContent = "";
    if (graph.status === "error") { toast(graph.message || "expand failed"); return; }
    const added = G.merge(ui.symbols, graph, n.id);
    toast("expanded " + n.name + ": " + added.nodes + " node(s), " + added.edges + " edge(s)");
  }

  function neighbours(n) {
    if (!ui.symbols || n.role !== "target") return [];
    const graph = ui.symbols.graph;
    const groups = graph.mode === "calls" ? [["caller", "Callers"], ["callee", "Callees"], ["external", "Unresolved calls"]]
      : [["dependent", "Dependents"], ["test", "Affected tests"]];
    const out = [];
    groups.forEach(function (g) {
      const members = graph.nodes.filter(function (m) { return m.role === g[0]; });
      if (!members.length) return;
      out.push(el("h2", { text: g[1] + " (" + members.length + ")" }));
      out.push(el("ul", { className: "neighbours", "data-role": g[0] }, members.map(function (m) {
        return el("li", {}, [m.resolved ? el("a", { className: "sym", href: "#", text: m.name,
          onclick: function (ev) { ev.preventDefault(); nodeDetails(m); openNode(m); } }) : el("span", { text: m.name }),
          el("span", { className: "muted", text: " " + (m.kind || "") + (m.path ? " · " + m.path + ":" + (m.line || "") : "") +
            (m.distance > 1 ? " · distance " + m.distance : "") })]);
      })));
    });
    return out;
  }

  function nodeDetails(n) {
    side([
      el("h2", { id: "node-title", text: n.name }),
      el("dl", { className: "kv" }, [el("dt", { text: "kind" }), el("dd", { text: n.kind || "–" }),
        el("dt", { text: "role" }), el("dd", { text: G.roleText[n.role] || n.role }),
        el("dt", { text: "distance" }), el("dd", { text: String(n.distance) }),
        el("dt", { text: "where" }), el("dd", {}, [n.path ? loc({ path: n.path, start_line: n.line }) : el("span", { text: "not in the workspace" })])]),
      n.resolved ? el("div", { className: "actions" }, [
        el("button", { type: "button", text: "Expand", onclick: function () { expand(n); } }),
        el("button", { type: "button", text: "Centre on this", onclick: function () { showSymbol(n.name, n.path); } }),
        el("button", { type: "button", text: "Show source", onclick: function () { openNode(n); } })]) : null,
    ].concat(neighbours(n)));
  }

  async function openNode(n) {
    if (!n.resolved || !n.path) return;
    if (n.anchor) return openAnchor(n.anchor, n.name);
    const answer = await api("/api/symbol", { symbol: n.name, path: n.path });
    if (answer.status === "error") { toast(answer.message || "no definition"); return; }
    const items = (answer.items || []).filter(function (i) { return i.anchor && i.anchor.path === n.path; });
    const exact = items.find(function (i) { return i.anchor.start_line === n.line; }) || items[0];
    if (!exact) { toast("no definition of " + n.name + " in " + n.path); return; }
    n.anchor = exact.anchor;
    openAnchor(exact.anchor, n.name);
  }

  function edgeSite(e) {
    const where = e.anchor || (e.site && e.site.path ? { path: e.site.path, start_line: e.site.line, end_line: e.site.line } : null);
    side([el("h2", { text: e.type + (e.written ? " " + e.written : "") }),
      el("dl", { className: "kv" }, [el("dt", { text: "strategy" }), el("dd", { text: e.strategy || "–" }),
        el("dt", { text: "confidence" }), el("dd", { text: typeof e.confidence === "number" ? e.confidence.toFixed(2) : "–" }),
        el("dt", { text: "sites" }), el("dd", { text: String(e.sites) }),
        el("dt", { text: "site" }), el("dd", {}, [where ? loc(where) : el("span", { text: "–" })])])]);
    if (where) openAnchor(where, e.type + " site");
  }

  /* ---- source ------------------------------------------------------------------------------ */

  async function openAnchor(anchor, label) {
    const body = await api("/api/source", { path: anchor.path, sha256: anchor.sha256 });
    if (body.status === "error") { toast(body.message || "no source"); return; }
    const start = anchor.start_line || 1;
    const end = anchor.end_line || start;
    const lines = body.text.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    const box = $("source");
    const frag = document.createDocumentFragment();
    lines.forEach(function (text, i) {
      const no = i + 1;
      const row = el("div", { className: "line" + (no >= start && no <= end ? " hl" : ""), id: "L" + no }, [
        el("span", { className: "no", text: String(no) }), el("span", { className: "code", text: text })]);
      frag.appendChild(row);
    });
    box.replaceChildren(frag);
    box.dataset.path = body.path;
    box.dataset.sha256 = body.sha256;
    box.dataset.startLine = String(start);
    box.dataset.endLine = String(end);
    $("source-title").textContent = body.path + ":" + start + (end !== start ? "-" + end : "") + " · sha256 " +
      body.sha256.slice(0, 12) + " · generation " + body.generation + (body.current ? "" : " · not the current capture") +
      (body.note ? " · " + body.note : "") + (body.lossy ? " · not valid UTF-8 (shown with replacements)" : "") +
      (label ? " · " + label : "");
    const opening = $("source-pane").hidden;
    $("source-pane").hidden = false;
    if (opening) refit();
    ui.source = { path: body.path, sha256: body.sha256, start_line: start, end_line: end };
    const first = $("L" + start);
    if (first) first.scrollIntoView({ block: "center" });
  }

  /* The graph pane changed size (the source pane opened or closed): fit the drawing again. */
  function refit() {
    requestAnimationFrame(function () {
      const view = ui.symbols || ui.packages;
      if (view) { view.network.redraw(); G.fit(view); }
    });
  }

  /* ---- search ------------------------------------------------------------------------------ */

  async function search(query) {
    ui.query = query;
    side([el("h2", { text: "Searching…" })]);
    const answer = await api("/api/search", { q: query });
    ui.results = answer;
    if (answer.status === "error") { side([el("h2", { text: "Search" }), errorBox(answer)]); return; }
    const items = answer.items || [];
    side([
      el("h2", { text: "Search: " + query }),
      el("p", { className: "muted", text: items.length + " result(s) · generation " + answer.view.generation }),
      el("div", { id: "results" }, items.map(function (item) {
        const a = item.anchor;
        const sym = item.symbol;
        return el("div", { className: "result" }, [
          loc(a, a.path + ":" + a.start_line + "-" + a.end_line),
          el("span", { className: "muted", text: " " + item.kind + (sym ? " · " + sym.kind + " " : " ") }),
          sym ? el("a", { className: "sym", href: "#", text: sym.qualified_name,
            onclick: function (ev) { ev.preventDefault(); showSymbol(sym.qualified_name, a.path); } }) : null,
          item.text ? el("pre", { text: item.text.split("\n").slice(0, 4).join("\n") }) : null,
        ]);
      })),
      el("ul", {}, (answer.coverage || []).map(function (c) { return el("li", { className: "muted", text: c }); })),
    ]);
  }

  /* ---- live updates ------------------------------------------------------------------------ */

  async function reload() {
    ui.reloads += 1;
    if (ui.view === "symbol" && ui.symbol) await showSymbol(ui.symbol.name, ui.symbol.path, ui.mode);
    else await showPackages(ui.scope);
    if (ui.query) await search(ui.query);
  }

  function listen() {
    const source = new EventSource(url("/api/events", {}));
    source.addEventListener("open", function () { $("live").className = "live on"; $("live").textContent = "● live"; });
    source.addEventListener("error", function () { $("live").className = "live off"; $("live").textContent = "○ reconnecting"; });
    source.addEventListener("generation", function (ev) {
      ui.events += 1;
      const data = JSON.parse(ev.data);
      if (data.generation === ui.generation) return;
      const first = ui.generation === 0 && !ui.picture;
      setGeneration(data.generation, data.published_at);
      if (!first) toast("new index published: generation " + data.generation);
      reload();
    });
  }

  /* ---- wiring ------------------------------------------------------------------------------ */

  $("search-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    const q = $("search-input").value.trim();
    if (q) search(q);
  });
  $("show-packages").addEventListener("click", function () { showPackages(null); });
  $("source-close").addEventListener("click", function () { $("source-pane").hidden = true; ui.source = null; refit(); });
  document.querySelectorAll('input[name="mode"]').forEach(function (r) {
    r.addEventListener("change", function () { if (ui.symbol) showSymbol(ui.symbol.name, ui.symbol.path, r.value); });
  });

  api("/api/view", {}).then(function (view) {
    if (view.status === "error") { side([errorBox(view)]); }
    setGeneration(view.generation || 0, view.published_at || null);
    if (view.generation) showPackages(null);
    else side([el("h2", { text: "No index yet" }), el("p", { text: view.message || "waiting for the first publication…" })]);
    listen();
  });
})();
