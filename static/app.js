// ccwallet web wallet: the small bits htmx does not do. Loaded with defer;
// everything here is an enhancement, the pages work without it.
(function () {
  "use strict";

  // Copy buttons: <button data-copy="text">.
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-copy]");
    if (!btn || !navigator.clipboard) return;
    navigator.clipboard.writeText(btn.getAttribute("data-copy")).then(function () {
      var old = btn.textContent;
      btn.textContent = "Copied";
      setTimeout(function () { btn.textContent = old; }, 1500);
    });
  });

  // Live updates: the server sends "changed" when the user's history grows
  // and "pending" when an offer or instruction comes or goes; elements with
  // hx-trigger="wallet-changed from:body" (or transfers-changed) reload.
  var url = document.body.getAttribute("data-events");
  if (url && window.EventSource && window.htmx) {
    var es = new EventSource(url);
    es.addEventListener("changed", function () {
      htmx.trigger(document.body, "wallet-changed");
    });
    es.addEventListener("pending", function () {
      htmx.trigger(document.body, "transfers-changed");
    });
  }

  // The receiver check swaps the send form's method choice, rendered with
  // the choice made when the check was sent (the server may choose direct
  // for the user); a method picked while it was on its way is put back
  // (when the new choice still offers it).
  var sentWith = null, picked = null;
  function checkedMethod(t) {
    var c = t.querySelector("input[name=method]:checked");
    return c ? c.value : null;
  }
  document.body.addEventListener("htmx:beforeRequest", function (ev) {
    var t = ev.detail.target;
    if (t && t.id === "send-methods") sentWith = checkedMethod(t);
  });
  // A form with an empty hx-post posts to its own action: the offer
  // lists' buttons do not repeat their long URLs (issue 38).
  document.body.addEventListener("htmx:configRequest", function (ev) {
    var f = ev.detail.elt;
    if (f && f.tagName === "FORM" && f.getAttribute("hx-post") === "") {
      ev.detail.path = f.getAttribute("action");
    }
  });
  document.body.addEventListener("htmx:beforeSwap", function (ev) {
    var t = ev.detail.target;
    if (!t || t.id !== "send-methods") return;
    var now = checkedMethod(t);
    picked = now !== sentWith ? now : null;
  });
  document.body.addEventListener("htmx:afterSettle", function () {
    if (picked === null) return;
    document.querySelectorAll("#send-methods input[name=method]").forEach(function (r) {
      if (r.value === picked) r.checked = true;
    });
    picked = null;
  });

  // A swap that replaces the focused element (a button in the offers list,
  // the tap form) would drop keyboard focus to the top of the page: focus
  // moves to what the swap says happened (its alert or status message, or
  // the page's status line when the answer put its words there), else to
  // the element of the same id, else to the swapped part itself, so Tab
  // goes on from there.
  //
  // A live reload of an enclosing part can land while a user's action is
  // on its way: its swap drops the focus to the page before the action's
  // answer swaps in, and the reload's own settle event fires on a part
  // already replaced, out of sight here. So the part an action was asked
  // from is remembered, and its answer's swap puts the focus back.
  var swapped = {}; // part id -> { same: id of the focused element, at }
  var acted = null; // { part, same }: an action asked from inside a part
  document.body.addEventListener("htmx:beforeRequest", function (ev) {
    var d = ev.detail, t = d.target, el = document.activeElement;
    if (t && t.id && d.requestConfig && d.requestConfig.verb !== "get" && t.contains(el)) {
      acted = { part: t.id, same: el.id };
    }
  });
  document.body.addEventListener("htmx:beforeSwap", function (ev) {
    var t = ev.detail.target, el = document.activeElement;
    if (!t || !t.id) return;
    if (t.contains(el)) {
      swapped[t.id] = { same: el.id, at: Date.now() };
    } else if (acted && acted.part === t.id && (!el || el === document.body)) {
      swapped[t.id] = { same: acted.same, at: Date.now() };
    }
    if (acted && acted.part === t.id) acted = null;
  });
  // An out-of-band part (the status line) settles on its own: the focus
  // waits for the part that held it.
  document.body.addEventListener("htmx:afterSettle", function (ev) {
    var t = ev.detail.target, id = t && t.id, s = id && swapped[id];
    if (!s) return;
    delete swapped[id];
    if (Date.now() - s.at < 2000) focusAfter(id, s.same);
  });
  function focusAfter(partId, sameId) {
    if (document.activeElement && document.activeElement !== document.body) return;
    var part = document.getElementById(partId);
    if (!part) return;
    var same = sameId && document.getElementById(sameId);
    var flash = document.getElementById("flash");
    var said = flash && flash.textContent.trim() !== "" ? flash : null;
    var to = part.querySelector("[role=alert], [role=status]") || said || (same && part.contains(same) ? same : part);
    if (!to.hasAttribute("tabindex") && !to.matches("a[href], button, input, select, textarea")) {
      to.setAttribute("tabindex", "-1");
    }
    to.focus();
  }

  // Times (<time datetime> from views.When) say the reader's local time in
  // their title; the server wrote it in UTC.
  function localTimes(root) {
    root.querySelectorAll("time[datetime][title]:not([data-local])").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d)) return;
      el.title = d.toLocaleString() + " (" + el.getAttribute("title") + ")";
      el.setAttribute("data-local", "");
    });
  }
  localTimes(document);
  document.body.addEventListener("htmx:afterSettle", function (ev) {
    if (ev.detail.elt) localTimes(ev.detail.elt);
  });

  // A read-only field of text to copy (the Receive page's party ID) is
  // selected whole when it gets focus.
  document.addEventListener("focusin", function (ev) {
    var el = ev.target;
    if (el && el.matches && el.matches("input[data-select-on-focus]")) el.select();
  });

  // Reveal copy buttons only when they can work.
  if (navigator.clipboard) {
    document.querySelectorAll("[data-copy][hidden]").forEach(function (b) { b.hidden = false; });
  }
})();

// The navigation's More (a <details>, works without this): Escape or a
// click elsewhere closes it.
(function () {
  "use strict";
  function closeMore(except) {
    document.querySelectorAll("nav.tabs details[open]").forEach(function (d) {
      if (d !== except) d.open = false;
    });
  }
  document.addEventListener("click", function (ev) {
    closeMore(ev.target.closest("nav.tabs details"));
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "Escape") return;
    var open = document.querySelector("nav.tabs details[open]");
    if (!open) return;
    open.open = false;
    open.querySelector("summary").focus();
  });
})();
