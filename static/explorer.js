// The API explorer (views/explorer.templ): each operation's form sends its
// call with the page's session, the CSRF token in X-CSRF-Token, which the
// API takes in place of a bearer token (handlers/api_session.go). Answers
// are shown as text, never as HTML.
(function () {
  "use strict";
  var csrf = "";
  try {
    csrf = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || "";
  } catch (e) { /* no token: the API answers 401 and says so */ }

  function show(out, text, ok) {
    var pre = document.createElement("pre");
    pre.textContent = text;
    out.replaceChildren(pre);
    out.classList.toggle("error", !ok);
  }

  // readSome reads a streaming answer (server-sent events) for a few
  // seconds, then stops: enough to see what it sends.
  async function readSome(res, ms) {
    var reader = res.body.getReader(), dec = new TextDecoder(), text = "";
    var stop = setTimeout(function () { reader.cancel(); }, ms);
    try {
      for (;;) {
        var r = await reader.read();
        if (r.done) break;
        text += dec.decode(r.value, { stream: true });
        if (text.length > 65536) { reader.cancel(); break; }
      }
    } catch (e) { /* cancelled */ }
    clearTimeout(stop);
    return text;
  }

  async function send(form) {
    var out = form.parentElement.querySelector("output.result");
    var path = form.dataset.path, method = form.dataset.method;
    var missing = false;
    path = path.replace(/\{([^}]+)\}/g, function (_, name) {
      var v = form.elements["path:" + name].value.trim();
      if (!v) missing = true;
      return encodeURIComponent(v);
    });
    if (missing) { show(out, "Fill in every path parameter.", false); return; }
    var q = form.elements.query ? form.elements.query.value.trim().replace(/^\?/, "") : "";
    if (q) path += "?" + q;
    var init = { method: method, credentials: "same-origin", headers: { "X-CSRF-Token": csrf, "Accept": "application/json" } };
    if (form.elements.body) {
      var body = form.elements.body.value.trim() || "{}";
      try { JSON.parse(body); } catch (e) { show(out, "The body is not valid JSON: " + e.message, false); return; }
      init.body = body;
      init.headers["Content-Type"] = "application/json";
    }
    show(out, "Sending " + method + " " + path + " …", true);
    try {
      var res = await fetch(path, init);
      var type = res.headers.get("Content-Type") || "";
      var text = type.indexOf("text/event-stream") === 0 ? await readSome(res, 3000) : await res.text();
      if (type.indexOf("json") >= 0) {
        try { text = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* as sent */ }
      }
      show(out, res.status + " " + res.statusText + "\n\n" + text, res.ok);
    } catch (e) {
      show(out, "The call failed: " + e.message, false);
    }
  }

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.matches || !form.matches("form.try")) return;
    ev.preventDefault();
    send(form);
  });
})();
