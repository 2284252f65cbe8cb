/* lazy-intel ui: the two graphs, drawn with vis-network (served from the installed pyvis 0.3.2).
 *
 * Packages: the positions come from the server (the same layered layout as the static SVG), so the
 * page and `lazy-intel architecture --format svg` show one picture; physics is off.
 * Symbols: vis-network's hierarchical layout, left to right by level — callers (and dependents) on
 * the left, the target in the middle, callees on the right; expanding a node merges its neighbours.
 */
(function () {
  "use strict";

  const COLOURS = {
    package: { background: "#eef3fb", border: "#4a6fa5" },
    cycle: { background: "#fdf0ee", border: "#c0392b" },
    target: { background: "#2b5797", border: "#1d3c6b", font: "#ffffff" },
    caller: { background: "#e3f4f1", border: "#2a8c7a" },
    callee: { background: "#efe9f8", border: "#6c4ba3" },
    dependent: { background: "#fdf1e3", border: "#c0761f" },
    test: { background: "#e8f5e3", border: "#3c8d2f" },
    external: { background: "#f2f3f5", border: "#a0a8b3" },
  };
  const ROLE_TEXT = {
    target: "asked about", caller: "caller", callee: "callee", dependent: "dependent",
    test: "test", external: "unresolved / external",
  };

  function tooltip(lines) {
    const div = document.createElement("div");
    div.style.whiteSpace = "pre";
    div.textContent = lines.filter(Boolean).join("\n");
    return div;
  }

  function colour(key) {
    const c = COLOURS[key] || COLOURS.package;
    return { background: c.background, border: c.border,
             highlight: { background: c.background, border: "#f0a500" },
             hover: { background: c.background, border: "#f0a500" } };
  }

  function packageNode(n) {
    const key = n.cycle === null || n.cycle === undefined ? "package" : "cycle";
    return {
      id: n.id, label: n.label + "\n" + n.detail, x: n.x, y: n.y, shape: "box",
      widthConstraint: { minimum: n.width, maximum: Math.max(n.width, 320) },
      margin: 8, borderWidth: key === "cycle" ? 2.5 : 1.2, color: colour(key),
      font: { face: "DejaVu Sans, Helvetica, Arial, sans-serif", size: 12, multi: false },
      title: tooltip([n.id, n.detail, "layer " + n.layer,
                      key === "cycle" ? "in package cycle " + (n.cycle + 1) : ""]),
    };
  }

  function packageEdge(e) {
    const c = e.in_cycle ? "#c0392b" : (e.guessed ? "#a0a8b3" : "#5b6b7f");
    return {
      id: e.from + "\u0000" + e.to, from: e.from, to: e.to, arrows: "to",
      width: Math.min(5, 1 + 0.6 * Math.log2(Math.max(1, e.total))),
      color: { color: c, highlight: "#f0a500", hover: "#f0a500", opacity: 0.85 },
      dashes: e.guessed && !e.in_cycle,
      smooth: { enabled: true, type: "cubicBezier", forceDirection: "vertical", roundness: 0.4 },
      title: tooltip([e.summary]),
    };
  }

  /* The layout is wide and flat when a layer holds many packages; on a taller canvas, spread the
   * rows apart (y only: the order and the rows stay those of the static picture). */
  function stretch(container, picture) {
    const w = container.clientWidth || 1, h = container.clientHeight || 1;
    const want = (h / w) / Math.max(0.05, picture.height / Math.max(1, picture.width));
    return Math.max(1, Math.min(2.5, want * 0.85));
  }

  function drawPackages(container, picture, handlers) {
    const k = stretch(container, picture);
    const nodes = new vis.DataSet(picture.nodes.map(function (n) {
      const node = packageNode(n);
      node.y = n.y * k;
      return node;
    }));
    const edges = new vis.DataSet(picture.edges.map(packageEdge));
    const network = new vis.Network(container, { nodes: nodes, edges: edges }, {
      physics: { enabled: false },
      layout: { hierarchical: { enabled: false } },
      interaction: { hover: true, tooltipDelay: 200, multiselect: false, navigationButtons: false },
      nodes: { fixed: { x: true, y: true } },
      edges: { selectionWidth: 1.5 },
    });
    network.on("click", function (params) {
      if (params.nodes.length) handlers.onNode(params.nodes[0]);
      else if (params.edges.length) handlers.onEdge(params.edges[0]);
      else handlers.onNothing();
    });
    network.on("doubleClick", function (params) {
      if (params.nodes.length && handlers.onOpen) handlers.onOpen(params.nodes[0]);
    });
    const view = { network: network, nodes: nodes, edges: edges };
    network.once("afterDrawing", function () { fit(view); });
    return view;
  }

  function nodeLevel(n, base) {
    if (n.role === "target") return base;
    const d = Math.max(1, n.distance || 1);
    if (n.role === "callee" || n.role === "external") return base + d;
    return base - d; /* callers, dependents and tests sit to the left of what they use */
  }

  function symbolNode(n, level) {
    const key = n.role in COLOURS ? n.role : "caller";
    const where = n.path ? n.path + (n.line ? ":" + n.line : "") : "not in the workspace";
    return {
      id: n.id, level: level, shape: "box", margin: 7,
      label: n.name + "\n" + (n.kind || "") + (n.path ? " · " + n.path.split("/").pop() + ":" + (n.line || "") : ""),
      color: colour(key), borderWidth: n.role === "target" ? 2 : 1.2,
      shapeProperties: { borderDashes: n.resolved ? false : [4, 3] },
      font: { face: "DejaVu Sans, Helvetica, Arial, sans-serif", size: 12,
              color: (COLOURS[key] && COLOURS[key].font) || "#1d2733" },
      title: tooltip([n.name, (n.kind || "") + " · " + (ROLE_TEXT[n.role] || n.role), where]),
      data: n,
    };
  }

  function symbolEdge(e) {
    const conf = typeof e.confidence === "number" ? e.confidence.toFixed(2) : "?";
    return {
      id: e.id, from: e.from, to: e.to, arrows: "to",
      dashes: e.type !== "CALLS" && e.type !== "call",
      label: e.sites > 1 ? e.type + " ×" + e.sites : e.type,
      font: { size: 9, color: "#5f6b7a", strokeWidth: 3, align: "middle" },
      color: { color: "#7d8897", highlight: "#f0a500", hover: "#f0a500" },
      width: 1 + 1.5 * (typeof e.confidence === "number" ? e.confidence : 0.3),
      smooth: { enabled: true, type: "cubicBezier", forceDirection: "horizontal", roundness: 0.35 },
      title: tooltip([e.type + " · " + (e.strategy || "") + " · confidence " + conf,
                      e.written ? "written: " + e.written : "", e.sites > 1 ? e.sites + " sites" : ""]),
      data: e,
    };
  }

  function drawSymbols(container, graph, handlers) {
    const nodes = new vis.DataSet();
    const edges = new vis.DataSet();
    const network = new vis.Network(container, { nodes: nodes, edges: edges }, {
      layout: { hierarchical: { enabled: true, direction: "LR", levelSeparation: 250, nodeSpacing: 46,
                                treeSpacing: 90, blockShifting: true, edgeMinimization: true,
                                parentCentralization: true, sortMethod: "directed" } },
      physics: { enabled: false },
      interaction: { hover: true, tooltipDelay: 200 },
    });
    const view = { network: network, nodes: nodes, edges: edges };
    merge(view, graph, null);
    network.on("click", function (params) {
      if (params.nodes.length) handlers.onNode(nodes.get(params.nodes[0]).data);
      else if (params.edges.length) handlers.onEdge(edges.get(params.edges[0]).data);
      else handlers.onNothing();
    });
    network.on("doubleClick", function (params) {
      if (params.nodes.length) handlers.onExpand(nodes.get(params.nodes[0]).data);
    });
    network.once("afterDrawing", function () { fit(view); });
    return view;
  }

  /* Add the nodes and edges of `graph` that are not drawn yet. When `around` (a drawn node's id)
   * is given, the new graph is that node's neighbourhood: its levels are placed relative to it. */
  function merge(view, graph, around) {
    let base = 0;
    if (around !== null) {
      const known = view.nodes.get(around);
      base = known ? known.level : 0;
    }
    const added = [];
    graph.nodes.forEach(function (n) {
      if (view.nodes.get(n.id)) return;
      added.push(symbolNode(n, nodeLevel(n, base)));
    });
    if (added.length) view.nodes.add(added);
    const newEdges = graph.edges.filter(function (e) {
      return !view.edges.get(e.id) && view.nodes.get(e.from) && view.nodes.get(e.to);
    }).map(symbolEdge);
    if (newEdges.length) view.edges.add(newEdges);
    return { nodes: added.length, edges: newEdges.length };
  }

  /* Fit the drawing to its pane, but never blow a small graph up past 1.3×. */
  function fit(view) {
    view.network.fit({ animation: false });
    if (view.network.getScale() > 1.3) view.network.moveTo({ scale: 1.3 });
  }

  window.lazyIntelGraphs = { drawPackages: drawPackages, drawSymbols: drawSymbols, merge: merge, fit: fit,
                             roleText: ROLE_TEXT, colours: COLOURS };
})();
