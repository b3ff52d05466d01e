/*
 * askdocs widget, one file, no build step: <script src="/_askdocs/widget.js" defer></script>
 * Its attributes, window.askdocs, the SSE events and the data-askdocs hooks are
 * public (docs/pages/widget.md). Model and page text reach the DOM only as text
 * nodes or through the Markdown renderer below, which builds elements itself.
 */
(() => {
  "use strict";

  // One instance per tab: a second tag or a router re-running us re-attaches it.
  if (window.__askdocsWidget) {
    window.__askdocsWidget.attach();
    return;
  }
  const instance = { attach() {} };
  window.__askdocsWidget = instance;

  // -- config
  const script =
    document.currentScript || document.querySelector('script[src*="_askdocs/widget.js"]');
  const attr = (name) => ((script && script.getAttribute("data-" + name)) || "").trim();
  const rootMatch = /^(.*\/)_askdocs\/widget\.js(?:[?#].*)?$/.exec((script && script.src) || "");
  const siteRoot = rootMatch ? rootMatch[1] : new URL("/", location.href).href;
  const site = new URL(siteRoot);
  const endpoint = new URL(attr("endpoint") || siteRoot, location.href).href.replace(/\/+$/, "");
  const locale =
    (attr("locale") || document.documentElement.lang || "en").toLowerCase().split(/[-_]/)[0] ||
    "en";
  const supportUrl = attr("support-url");
  const tokenEndpoint = attr("token-endpoint");
  const stallMs = Number(attr("stall-ms")) > 0 ? Number(attr("stall-ms")) : 20000;
  const STORE_KEY = "askdocs:v1:" + site.pathname;
  const MAX_INPUT = 4000;
  const HISTORY_TURNS = 10;
  const MAX_STORED = 60;
  const HISTORY_TURN_CHARS = 2000;
  const HISTORY_TOTAL_CHARS = 12000;
  const isMac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

  // -- strings
  const STRINGS = {
    en: {
      title: "Ask the docs",
      subtitle: "Answers from these docs, with sources",
      emptyTitle: "Ask anything about these docs",
      emptyText: "Answers come from this site's pages and link to their sources, so you can check them.",
      placeholder: "Ask a question…",
      send: "Send",
      stop: "Stop answering",
      close: "Close",
      newChat: "New conversation",
      hint: "Enter to send · Shift+Enter for a new line",
      you: "Your question",
      answer: "Answer",
      searching: "Searching…",
      reading: "Reading {0}…",
      readingAny: "Reading…",
      browsing: "Browsing {0}…",
      finding: "Looking for “{0}”…",
      grepping: "Searching for “{0}”…",
      answering: "Answering…",
      working: "Working…",
      searchingOffline: "Searching this site…",
      from: "From: ",
      sources: "Sources",
      copy: "Copy answer",
      copyCode: "Copy code",
      copied: "Copied",
      up: "Helpful",
      down: "Not helpful",
      thanks: "Thanks, your feedback was recorded.",
      feedbackFailed: "Your feedback could not be sent.",
      support: "Contact support",
      retry: "Retry",
      stopped: "Stopped.",
      stalled: "No response for a while: the answer seems to have stalled.",
      dropped: "The connection dropped before the answer was complete.",
      failed: "The answer failed: {0}",
      unauthorized: "Your sign-in is missing or has expired. Reload the page and try again.",
      rateLimited: "Too many questions in a short time. Wait a moment, then retry.",
      tooLarge: "That question is too long. Please shorten it.",
      offline: "The assistant can't be reached right now. A search of this site in your browser found these pages:",
      offlineNone: "The assistant can't be reached right now, and a search of this site in your browser found no matching pages.",
      offlineFailed: "The assistant can't be reached right now, and the in-browser search is not available either.",
      fallbackMode: "The AI model was unavailable, so this answer quotes the documentation directly.",
      respelled: "Read as: {0}",
      announce: "Answer: {0}",
      jump: "Jump to a section",
      suggested: "Try asking",
    },
    es: {
      title: "Pregunta a la documentación",
      subtitle: "Respuestas de esta documentación, con fuentes",
      emptyTitle: "Pregunta lo que quieras sobre esta documentación",
      emptyText: "Las respuestas salen de las páginas de este sitio y enlazan a sus fuentes para que puedas comprobarlas.",
      placeholder: "Haz una pregunta…",
      send: "Enviar",
      stop: "Detener la respuesta",
      close: "Cerrar",
      newChat: "Nueva conversación",
      hint: "Intro para enviar · Mayús+Intro para una línea nueva",
      you: "Tu pregunta",
      answer: "Respuesta",
      searching: "Buscando…",
      reading: "Leyendo {0}…",
      readingAny: "Leyendo…",
      browsing: "Explorando {0}…",
      finding: "Buscando «{0}»…",
      grepping: "Buscando «{0}»…",
      answering: "Respondiendo…",
      working: "Trabajando…",
      searchingOffline: "Buscando en este sitio…",
      from: "Fuente: ",
      sources: "Fuentes",
      copy: "Copiar respuesta",
      copyCode: "Copiar código",
      copied: "Copiado",
      up: "Útil",
      down: "No es útil",
      thanks: "Gracias, hemos registrado tu valoración.",
      feedbackFailed: "No se pudo enviar tu valoración.",
      support: "Contactar con soporte",
      retry: "Reintentar",
      stopped: "Detenido.",
      stalled: "Sin respuesta desde hace un rato: la respuesta parece haberse atascado.",
      dropped: "La conexión se cortó antes de completar la respuesta.",
      failed: "La respuesta falló: {0}",
      unauthorized: "Falta tu inicio de sesión o ha caducado. Recarga la página e inténtalo de nuevo.",
      rateLimited: "Demasiadas preguntas en poco tiempo. Espera un momento y reinténtalo.",
      tooLarge: "La pregunta es demasiado larga. Acórtala, por favor.",
      offline: "El asistente no está disponible ahora mismo. Una búsqueda en este sitio desde tu navegador encontró estas páginas:",
      offlineNone: "El asistente no está disponible ahora mismo y la búsqueda en este sitio desde tu navegador no encontró páginas.",
      offlineFailed: "El asistente no está disponible ahora mismo y la búsqueda en el navegador tampoco.",
      fallbackMode: "El modelo de IA no estaba disponible, así que esta respuesta cita la documentación directamente.",
      respelled: "Leído como: {0}",
      announce: "Respuesta: {0}",
      jump: "Ir a una sección",
      suggested: "Prueba a preguntar",
    },
    fr: {
      title: "Interroger la documentation",
      subtitle: "Réponses tirées de cette documentation, avec sources",
      emptyTitle: "Posez vos questions sur cette documentation",
      emptyText: "Les réponses proviennent des pages de ce site et renvoient à leurs sources pour que vous puissiez vérifier.",
      placeholder: "Posez une question…",
      send: "Envoyer",
      stop: "Arrêter la réponse",
      close: "Fermer",
      newChat: "Nouvelle conversation",
      hint: "Entrée pour envoyer · Maj+Entrée pour aller à la ligne",
      you: "Votre question",
      answer: "Réponse",
      searching: "Recherche…",
      reading: "Lecture de {0}…",
      readingAny: "Lecture…",
      browsing: "Exploration de {0}…",
      finding: "Recherche de « {0} »…",
      grepping: "Recherche de « {0} »…",
      answering: "Rédaction de la réponse…",
      working: "Travail en cours…",
      searchingOffline: "Recherche dans ce site…",
      from: "Source : ",
      sources: "Sources",
      copy: "Copier la réponse",
      copyCode: "Copier le code",
      copied: "Copié",
      up: "Utile",
      down: "Pas utile",
      thanks: "Merci, votre avis a été enregistré.",
      feedbackFailed: "Votre avis n'a pas pu être envoyé.",
      support: "Contacter le support",
      retry: "Réessayer",
      stopped: "Arrêté.",
      stalled: "Aucune réponse depuis un moment : la réponse semble bloquée.",
      dropped: "La connexion a été coupée avant la fin de la réponse.",
      failed: "La réponse a échoué : {0}",
      unauthorized: "Votre connexion est absente ou a expiré. Rechargez la page puis réessayez.",
      rateLimited: "Trop de questions en peu de temps. Patientez un instant, puis réessayez.",
      tooLarge: "Cette question est trop longue. Raccourcissez-la.",
      offline: "L'assistant est injoignable pour le moment. Une recherche dans ce site depuis votre navigateur a trouvé ces pages :",
      offlineNone: "L'assistant est injoignable pour le moment, et la recherche dans ce site depuis votre navigateur n'a rien trouvé.",
      offlineFailed: "L'assistant est injoignable pour le moment, et la recherche dans le navigateur non plus.",
      fallbackMode: "Le modèle d'IA était indisponible : cette réponse cite directement la documentation.",
      respelled: "Lu comme : {0}",
      announce: "Réponse : {0}",
      jump: "Aller à une section",
      suggested: "Essayez de demander",
    },
  };
  const STR = Object.assign({}, STRINGS.en, STRINGS[locale]);
  const t = (key, arg) => STR[key].replace("{0}", arg == null ? "" : String(arg));

  // -- icons
  const ICONS = {
    spark: "M12 3l1.8 5.2L19 10l-5.2 1.8L12 17l-1.8-5.2L5 10l5.2-1.8z|M19 15l.8 2.2L22 18l-2.2.8L19 21l-.8-2.2L16 18l2.2-.8z",
    send: "M12 19V5|M5 12l7-7 7 7",
    stop: "M7 7h10v10H7z",
    close: "M18 6 6 18|M6 6l12 12",
    edit: "M12 20h9|M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z",
    copy: "M9 9h11v11H9z|M5 15H4V4h11v1",
    check: "M20 6 9 17l-5-5",
    up: "M7 10v11|M15 5.9 14 10h5.8a2 2 0 0 1 1.9 2.6l-2.3 8a2 2 0 0 1-1.9 1.4H4a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2h2.8a2 2 0 0 0 1.8-1.1L12 2a3.1 3.1 0 0 1 3 3.9z",
    doc: "M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z|M14 2v6h6|M9 13h6|M9 17h4",
    arrow: "M5 12h14|M12 5l7 7-7 7",
    retry: "M3 12a9 9 0 1 0 3-6.7L3 8|M3 3v5h5",
    alert: "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20z|M12 8v4|M12 16h.01",
  };
  const SVG_NS = "http://www.w3.org/2000/svg";
  function icon(name) {
    const el = document.createElementNS(SVG_NS, "svg");
    el.setAttribute("viewBox", "0 0 24 24");
    el.setAttribute("aria-hidden", "true");
    el.setAttribute("focusable", "false");
    for (const d of ICONS[name].split("|")) {
      const path = document.createElementNS(SVG_NS, "path");
      path.setAttribute("d", d);
      el.append(path);
    }
    return el;
  }

  // -- styles
  const LIGHT =
    "--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--border:#e3e6ea;--border-strong:#cfd4da;" +
    "--soft:#f5f6f8;--code-bg:#f7f8fa;--user-bg:color-mix(in srgb,var(--accent) 9%,#fff);" +
    "--link:var(--md-typeset-a-color,var(--accent));--warn-bg:#fff8e6;--warn-fg:#6b4a00;" +
    "--warn-border:#f3dca0;--err-bg:#fdf0f0;--err-fg:#8e1c1c;--err-border:#f2c4c4;" +
    "--shadow:0 24px 60px rgba(17,24,39,.18),0 4px 14px rgba(17,24,39,.08);";
  const DARK =
    "--bg:#17191d;--fg:#e7e9ec;--muted:#a3abb6;--border:#2b2f36;--border-strong:#3b414a;" +
    "--soft:#1f2228;--code-bg:#121418;--user-bg:color-mix(in srgb,var(--accent) 26%,#17191d);" +
    "--link:color-mix(in srgb,var(--md-typeset-a-color,var(--accent)) 45%,#fff);" +
    "--warn-bg:#2b2411;--warn-fg:#f1d48a;--warn-border:#54461f;--err-bg:#2d1618;--err-fg:#f5b5b5;" +
    "--err-border:#5a2a2e;--shadow:0 24px 60px rgba(0,0,0,.5),0 4px 14px rgba(0,0,0,.35);";
  const CSS = `
:host{all:initial}
.root{--accent:var(--md-primary-fg-color,#4f46e5);--on-accent:var(--md-primary-bg-color,#fff);
--ring:color-mix(in srgb,var(--accent) 70%,var(--fg));
--mono:var(--md-code-font-family,ui-monospace),ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
${LIGHT}font:14.5px/1.55 var(--md-text-font-family,system-ui),-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
color:var(--fg);-webkit-font-smoothing:antialiased;text-align:left}
@media (prefers-color-scheme:dark){:host(:not([data-theme=light])) .root{${DARK}}}
:host([data-theme=dark]) .root{${DARK}}
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
button{font:inherit;color:inherit;cursor:pointer;-webkit-tap-highlight-color:transparent}
:focus-visible{outline:2px solid var(--ring);outline-offset:2px}
svg{width:18px;height:18px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round;flex:none}
.vh{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;display:flex;align-items:center;gap:8px;
height:46px;padding:0 14px 0 16px;border:0;border-radius:23px;background:var(--accent);color:var(--on-accent);
font-size:14px;font-weight:600;letter-spacing:.01em;box-shadow:0 8px 24px rgba(17,24,39,.22),0 2px 6px rgba(17,24,39,.12);
transition:transform .15s ease,box-shadow .15s ease}
.launcher:hover{transform:translateY(-1px);box-shadow:0 12px 28px rgba(17,24,39,.26),0 2px 6px rgba(17,24,39,.14)}
.launcher kbd{font-family:inherit;font-size:11px;font-weight:600;line-height:1;padding:4px 6px;border-radius:6px;background:color-mix(in srgb,var(--on-accent) 18%,transparent)}
.panel{position:fixed;right:20px;bottom:20px;z-index:2147483001;display:flex;flex-direction:column;
width:min(440px,calc(100vw - 40px));height:min(700px,calc(100vh - 40px));background:var(--bg);color:var(--fg);
border:1px solid var(--border);border-radius:18px;box-shadow:var(--shadow);overflow:hidden;animation:ad-in .18s ease-out}
@keyframes ad-in{from{opacity:0;transform:translateY(10px) scale(.985)}}
.panel.dock{right:0;bottom:0;width:clamp(340px,32vw,440px);height:auto;border-width:0 0 0 1px;border-radius:0;box-shadow:-8px 0 24px rgba(17,24,39,.08)}
.scrim{position:fixed;inset:0;z-index:2147483000;background:rgba(17,24,39,.35)}
.head{display:flex;align-items:center;gap:12px;padding:14px 10px 13px 16px;border-bottom:1px solid var(--border)}
.mark{display:grid;place-items:center;width:34px;height:34px;border-radius:10px;background:var(--accent);color:var(--on-accent);flex:none}
.titles{flex:1;min-width:0}
h2{margin:0;font-size:15px;font-weight:650;line-height:1.3}
.sub{margin:1px 0 0;font-size:12.5px;line-height:1.35;color:var(--muted)}
.ib{display:grid;place-items:center;width:34px;height:34px;padding:0;border:0;border-radius:9px;background:transparent;color:var(--muted);flex:none}
.ib:hover{background:var(--soft);color:var(--fg)}
.ib[aria-pressed=true]{color:var(--accent);background:color-mix(in srgb,var(--accent) 12%,transparent)}
.ib:disabled{cursor:default}
.body{position:relative;flex:1;min-height:0;display:flex;flex-direction:column}
.log{position:relative;flex:1;overflow-y:auto;overscroll-behavior:contain;padding:20px 18px 48px;display:flex;flex-direction:column;gap:20px;scrollbar-width:thin}
.empty{margin:auto;max-width:300px;text-align:center;color:var(--muted);font-size:13.5px}
.empty .mark{margin:0 auto 14px;width:44px;height:44px;border-radius:14px;background:color-mix(in srgb,var(--accent) 12%,transparent);color:var(--accent)}
.empty .mark svg{width:22px;height:22px}
.empty h3{margin:0 0 6px;font-size:15.5px;font-weight:650;color:var(--fg)}
.empty p{margin:0}
.sugg{display:flex;flex-direction:column;gap:6px;margin-top:18px;text-align:left}
.chip{padding:8px 12px;border:1px solid var(--border);border-radius:10px;background:var(--soft);color:var(--fg);font-size:13px;text-align:left}
.chip:hover{border-color:var(--accent)}
.hits{position:absolute;left:10px;right:10px;bottom:8px;max-height:70%;overflow-y:auto;padding:6px;background:var(--bg);
border:1px solid var(--border);border-radius:12px;box-shadow:var(--shadow)}
.hit{display:block;padding:6px 8px;border-radius:8px;color:var(--fg);text-decoration:none}
.hit[aria-selected=true],.hit:hover{background:var(--soft);outline:1px solid var(--border-strong)}
.ht{display:block;font-size:13px;font-weight:600;color:var(--link)}
.hs{display:block;font-size:12px;color:var(--muted);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.user{align-self:flex-end;max-width:86%;padding:9px 14px;border-radius:18px 18px 5px 18px;background:var(--user-bg);white-space:pre-wrap;overflow-wrap:anywhere}
.answer{display:flex;flex-direction:column;align-items:flex-start;gap:12px;min-width:0}
.answer>*{max-width:100%}
.extras{display:contents}
.md{width:100%;overflow-wrap:anywhere}
.md:empty::after,.md[data-streaming]>:last-child::after{content:"";display:inline-block;width:7px;height:15px;margin-left:3px;
border-radius:2px;background:var(--accent);vertical-align:-2px;animation:ad-blink 1s steps(2,start) infinite}
.md[data-streaming]>.code:last-child::after,.md[data-streaming]>ul:last-child::after,.md[data-streaming]>ol:last-child::after{display:none}
@keyframes ad-blink{to{visibility:hidden}}
.md p,.md ul,.md ol,.md blockquote,.md .code,.md .h,.tbl,.grp{margin:0 0 10px}
.lead{font-size:15px;font-weight:600}
.md .cite{display:inline-flex;text-decoration:none}
.tbl{overflow-x:auto;overflow-wrap:normal}
.md table{border-collapse:collapse;font-size:13px}
.md th,.md td{padding:5px 10px;border:1px solid var(--border);text-align:left;vertical-align:top}
.md th{background:var(--soft);font-weight:600}
.md>:last-child{margin-bottom:0}
.md ul,.md ol{padding-left:22px}
.md li{margin:3px 0}
.md li>ul,.md li>ol{margin:4px 0}
.md .h{font-weight:650}
.md blockquote{padding:2px 0 2px 12px;border-left:3px solid var(--border-strong);color:var(--muted)}
.md a{color:var(--link);text-decoration:underline;text-underline-offset:2px;text-decoration-thickness:1px}
.md code{font-family:var(--mono);font-size:.86em;padding:.12em .38em;border-radius:5px;background:var(--soft);border:1px solid var(--border)}
.code{width:100%;border:1px solid var(--border);border-radius:10px;background:var(--code-bg);overflow:hidden}
.code .bar{display:flex;align-items:center;justify-content:space-between;padding:3px 4px 3px 12px;border-bottom:1px solid var(--border);font-size:11.5px;color:var(--muted)}
.code .ib{width:28px;height:28px}
.code .ib svg{width:15px;height:15px}
.md pre{background:linear-gradient(90deg,var(--code-bg),#0000) 0/24px 100% local,linear-gradient(270deg,var(--code-bg),#0000) 100%/24px 100% local,
radial-gradient(farthest-side at 0,#0003,#0000) 0/10px 100% scroll,radial-gradient(farthest-side at 100%,#0003,#0000) 100%/10px 100% scroll;background-repeat:no-repeat}
.md pre{margin:0;padding:10px 12px;overflow-x:auto;font:12.5px/1.6 var(--mono);white-space:pre}
.md pre code{padding:0;border:0;background:none;font-size:inherit}
.unanswered .md{padding:12px 14px;border-radius:12px;background:var(--soft);border:1px solid var(--border)}
.note{display:flex;align-items:center;flex-wrap:wrap;gap:8px 10px;width:100%;padding:8px 8px 8px 12px;border-radius:10px;
font-size:13px;background:var(--warn-bg);color:var(--warn-fg);border:1px solid var(--warn-border)}
.note.err{background:var(--err-bg);color:var(--err-fg);border-color:var(--err-border)}
.note.info{background:var(--soft);color:var(--muted);border-color:var(--border)}
.note>svg{width:16px;height:16px}
.note .txt{flex:1;min-width:140px}
.btn{display:inline-flex;align-items:center;gap:6px;height:30px;padding:0 12px;border-radius:8px;border:1px solid var(--border-strong);
background:var(--bg);color:var(--fg);font-size:13px;font-weight:550}
.btn:hover{border-color:var(--accent)}
.btn svg{width:15px;height:15px}
.esc{display:inline-flex;align-items:center;gap:8px;padding:9px 15px;border-radius:10px;background:var(--accent);color:var(--on-accent);
font-size:13.5px;font-weight:600;text-decoration:none;box-shadow:0 1px 2px rgba(17,24,39,.12)}
.esc:hover{filter:brightness(1.08)}
.esc svg{width:16px;height:16px}
.src{width:100%}
.lbl{margin:0 0 6px;font-size:11px;font-weight:650;letter-spacing:.06em;text-transform:uppercase;color:var(--muted)}
.src ul{display:flex;flex-wrap:wrap;gap:6px;margin:0;padding:0;list-style:none}
.src li{max-width:100%;min-width:0}
.cite{display:flex;align-items:center;gap:6px;max-width:100%;padding:5px 10px;border:1px solid var(--border);border-radius:8px;
background:var(--soft);color:var(--link);font-size:12.5px;font-weight:550;text-decoration:none}
.cite:hover{border-color:var(--link)}
.cite svg{width:14px;height:14px;color:var(--muted)}
.cite span{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.acts{display:flex;align-items:center;gap:2px;margin:-4px 0 0 -6px;color:var(--muted)}
.acts .ib{width:30px;height:30px}
.acts .ib svg{width:16px;height:16px}
.acts .dn svg{transform:rotate(180deg)}
.fb{margin-left:6px;font-size:12px;color:var(--muted)}
.status{position:absolute;left:50%;bottom:10px;transform:translateX(-50%);display:flex;align-items:center;gap:8px;max-width:calc(100% - 32px);
padding:5px 12px 5px 10px;border-radius:999px;background:var(--bg);border:1px solid var(--border);box-shadow:0 4px 14px rgba(17,24,39,.1);
font-size:12.5px;color:var(--muted);white-space:nowrap}
.status span:last-child{overflow:hidden;text-overflow:ellipsis}
.spin{width:12px;height:12px;border-radius:50%;border:2px solid var(--border-strong);border-top-color:var(--accent);animation:ad-spin .8s linear infinite;flex:none}
@keyframes ad-spin{to{transform:rotate(360deg)}}
.composer{padding:10px 12px 10px;border-top:1px solid var(--border)}
.box{display:flex;align-items:flex-end;gap:8px;padding:7px 7px 7px 14px;border:1px solid var(--border-strong);border-radius:14px;background:var(--bg)}
.box:focus-within{border-color:var(--accent);box-shadow:0 0 0 3px color-mix(in srgb,var(--accent) 22%,transparent)}
textarea{flex:1;min-height:24px;max-height:140px;padding:5px 0;border:0;outline:0;resize:none;background:transparent;color:var(--fg);font:inherit;line-height:1.45}
textarea:focus-visible{outline:0}
textarea::placeholder{color:var(--muted)}
.go{display:grid;place-items:center;width:34px;height:34px;padding:0;border:0;border-radius:10px;background:var(--accent);color:var(--on-accent);flex:none}
.go:disabled{opacity:.45;cursor:default}
.go.stop svg{fill:currentColor;width:14px;height:14px}
.foot{display:flex;justify-content:space-between;gap:10px;margin:7px 4px 0;font-size:11.5px;color:var(--muted)}
.foot a{color:inherit}
@media (max-width:640px){
.panel{inset:0;width:auto;height:auto;border:0;border-radius:0;animation:none}
.launcher{right:16px;bottom:16px;width:54px;height:54px;padding:0;justify-content:center;border-radius:50%}
.launcher svg{width:22px;height:22px}
.launcher .txt,.launcher kbd,.foot .hint{display:none}
.log{padding:16px 14px 48px}
textarea{font-size:16px}}
@media (hover:none){.launcher kbd{display:none}}
@media (prefers-reduced-motion:reduce){*,*::before,*::after{animation:none!important;transition:none!important;scroll-behavior:auto!important}}
@media (forced-colors:active){.launcher,.panel,.go,.esc,.cite,.btn{border:1px solid CanvasText}}
`;

  // -- DOM helpers
  function h(tag, props, ...kids) {
    const el = document.createElement(tag);
    for (const key in props || {}) {
      const value = props[key];
      if (value == null || value === false) continue;
      if (key === "class") el.className = value;
      else if (key === "text") el.textContent = value;
      else if (key === "icon") el.append(icon(value));
      else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? "" : value);
    }
    for (const kid of kids) if (kid != null && kid !== false) el.append(kid);
    return el;
  }
  const iconButton = (icon, label, onclick, extra) =>
    h("button", Object.assign({ type: "button", class: "ib", icon, "aria-label": label, title: label, onclick }, extra));

  // "/install/" resolves against the site root we were served from (sub-path sites).
  function resolve(href) {
    const raw = String(href || "").trim();
    if (!raw || /^(javascript|data|vbscript|file):/i.test(raw)) return null;
    let url;
    try {
      if (raw[0] === "#") url = new URL(raw, location.href);
      else if (raw[0] === "/" && raw[1] !== "/" && !raw.startsWith(site.pathname))
        url = new URL(raw.slice(1), siteRoot);
      else url = new URL(raw, siteRoot);
    } catch {
      return null;
    }
    return /^https?:$/.test(url.protocol) ? url : null;
  }
  function sameSite(href) {
    const url = resolve(href);
    return url && (url.origin === site.origin || url.origin === location.origin) ? url.href : null;
  }
  function pagePath() {
    const path = location.pathname;
    return path.startsWith(site.pathname) ? "/" + path.slice(site.pathname.length) : path;
  }

  // -- Markdown
  const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
  const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
  const HEADING = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
  const QUOTE = /^ {0,3}>\s?(.*)$/;
  const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
  const FROM = /^\s*(?:From|Fuente|Source)\s?:\s*\[((?:\\.|[^\\\]\n])+)\]\(\s*([^()\s]+)\s*\)\s*(?:[—–]\s*(.*?))?\s*$/;
  const indentOf = (line) => line.match(/^\s*/)[0].length;
  const isTable = (lines, i) => lines[i].includes("|") && TABLE_SEP.test(lines[i + 1] || "") && lines[i + 1].includes("-");

  // "From: [Page › Section](/url/#a)" cites the group above it.
  function renderAnswer(text, into) {
    const cited = new Set();
    let group = [];
    for (const line of String(text).replace(/\r\n?/g, "\n").split("\n")) {
      const m = FROM.exec(line);
      if (!m) {
        group.push(line);
        continue;
      }
      const el = h("div", { class: "grp" });
      blocks(group, el);
      group = [];
      if (el.firstChild && el.firstChild.nodeName === "P") el.firstChild.className = "lead";
      const href = sameSite(m[2]);
      const label = t("from") + m[1].replace(/\\(.)/g, "$1") + (m[3] ? " — " + m[3] : "");
      el.append(citation(href, label));
      if (href) cited.add(href);
      into.append(el);
    }
    blocks(group, into);
    return cited;
  }

  function blocks(lines, into) {
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let m;
      if (!line.trim()) {
        i++;
      } else if ((m = FENCE.exec(line))) {
        const close = new RegExp("^ {0,3}" + m[1][0] + "{" + m[1].length + ",}\\s*$");
        const code = [];
        for (i++; i < lines.length && !close.test(lines[i]); i++) code.push(lines[i]);
        i++;
        into.append(codeBlock(code.join("\n"), m[2]));
      } else if (isTable(lines, i)) {
        const table = h("table");
        const row = (cells, tag) => h("tr", null, ...cells.map((c) => inline(c, h(tag))));
        table.append(h("thead", null, row(cellsOf(line), "th")));
        const body = h("tbody");
        for (i += 2; i < lines.length && lines[i].includes("|") && lines[i].trim(); i++) body.append(row(cellsOf(lines[i]), "td"));
        table.append(body);
        into.append(h("div", { class: "tbl", tabindex: "0" }, table));
      } else if ((m = ITEM.exec(line))) {
        i = list(lines, i, into);
      } else if ((m = HEADING.exec(line))) {
        into.append(inline(m[1], h("p", { class: "h" })));
        i++;
      } else if (QUOTE.test(line)) {
        const quoted = [];
        for (; i < lines.length && (m = QUOTE.exec(lines[i])); i++) quoted.push(m[1]);
        const quote = h("blockquote");
        blocks(quoted, quote);
        into.append(quote);
      } else {
        const para = [];
        for (; i < lines.length; i++) {
          const l = lines[i];
          if (!l.trim() || (para.length && (FENCE.test(l) || ITEM.test(l) || HEADING.test(l) || QUOTE.test(l) || isTable(lines, i)))) break;
          para.push(l.trim());
        }
        into.append(inline(para.join("\n"), h("p")));
      }
    }
  }

  const cellsOf = (row) => row.trim().replace(/^\|/, "").replace(/(^|[^\\])\|$/, "$1").split(/(?<!\\)\|/).map((c) => c.trim());

  function list(lines, i, into) {
    const first = ITEM.exec(lines[i]);
    const base = first[1].length;
    const ordered = /\d/.test(first[2]);
    const el = h(ordered ? "ol" : "ul");
    if (ordered && parseInt(first[2], 10) !== 1) el.start = parseInt(first[2], 10);
    const sameList = (l) => {
      const m = ITEM.exec(l);
      return m && m[1].length === base && /\d/.test(m[2]) === ordered;
    };
    while (i < lines.length && sameList(lines[i])) {
      const m = ITEM.exec(lines[i]);
      const contentCol = m[1].length + m[2].length + 1;
      const item = [m[3]];
      for (i++; i < lines.length; i++) {
        const l = lines[i];
        if (!l.trim()) {
          const next = lines[i + 1];
          if (next && next.trim() && indentOf(next) > base) {
            item.push("");
            continue;
          }
          break;
        }
        if (indentOf(l) > base) item.push(l.slice(Math.min(indentOf(l), contentCol)));
        else if (ITEM.test(l) || FENCE.test(l) || HEADING.test(l)) break;
        else item.push(l);
      }
      const li = h("li");
      blocks(item, li);
      const lead = li.firstChild;
      if (lead && lead.nodeName === "P") lead.replaceWith(...lead.childNodes);
      el.append(li);
      let j = i;
      while (j < lines.length && !lines[j].trim()) j++;
      if (j < lines.length && sameList(lines[j])) i = j;
    }
    into.append(el);
    return i;
  }

  function codeBlock(code, lang) {
    const copyBtn = iconButton("copy", t("copyCode"), () => copyText(code, copyBtn));
    return h(
      "div",
      { class: "code" },
      h("div", { class: "bar" }, h("span", { text: lang || "" }), copyBtn),
      h("pre", { tabindex: "0" }, h("code", { text: code }))
    );
  }

  const INLINE =
    /\\([\\`*_{}[\]()#+\-.!<>|])|(`+)([^`]|[^`][\s\S]*?[^`])\2(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__(?!\w)|\*(?=[^\s*])([^*\n]*?[^\s*])\*(?!\*)|(!?)\[((?:\\.|[^\\\]\n])*)\]\(\s*<?([^()\s>]*(?:\([^()\s]*\)[^()\s>]*)*)>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)|<(https?:\/\/[^\s<>]+)>|(https?:\/\/[^\s<>]*[^\s<>.,;:!?'")\]*_])/g;

  function inline(text, into, noLinks) {
    const re = new RegExp(INLINE.source, "g");
    let last = 0;
    let m;
    while ((m = re.exec(text))) {
      plain(text.slice(last, m.index), into);
      last = re.lastIndex;
      if (m[1] != null) plain(m[1], into);
      else if (m[2]) into.append(h("code", { text: m[3].replace(/\n/g, " ").replace(/^ (.+) $/, "$1") }));
      else if (m[4] || m[5]) into.append(inline(m[4] || m[5], h("strong"), noLinks));
      else if (m[6]) into.append(inline(m[6], h("em"), noLinks));
      else if (m[8] != null) {
        const href = !m[7] && !noLinks && sameSite(m[9]);
        if (href) into.append(inline(m[8], h("a", { href }), true));
        else inline(m[8], into, true);
      } else {
        const url = m[10] || m[11];
        const href = !noLinks && sameSite(url);
        if (href) into.append(h("a", { href, text: url }));
        else plain(url, into);
      }
    }
    plain(text.slice(last), into);
    return into;
  }

  function plain(text, into) {
    text.split("\n").forEach((part, n) => {
      if (n) into.append(h("br"));
      if (part) into.append(document.createTextNode(part));
    });
  }

  // -- SSE
  // SSE over fetch (EventSource cannot POST), by the WHATWG rules.
  async function readEvents(body, onEvent, onActivity) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let name = "";
    let data = null;
    const feed = (line) => {
      if (line === "") {
        const ev = data;
        const evName = name || "message";
        data = null;
        name = "";
        return ev !== null && onEvent(evName, ev.join("\n"));
      }
      if (line[0] === ":") return false;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value[0] === " ") value = value.slice(1);
      if (field === "event") name = value;
      else if (field === "data") (data || (data = [])).push(value);
      return false;
    };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          buffer += decoder.decode();
          for (const line of buffer.split(/\r\n|\r|\n/)) if (feed(line)) return true;
          return feed("");
        }
        onActivity();
        buffer += decoder.decode(value, { stream: true });
        let start = 0;
        for (let i = 0; i < buffer.length; i++) {
          const ch = buffer[i];
          if (ch !== "\n" && ch !== "\r") continue;
          if (ch === "\r" && i === buffer.length - 1) break;
          if (feed(buffer.slice(start, i))) return true;
          if (ch === "\r" && buffer[i + 1] === "\n") i++;
          start = i + 1;
        }
        buffer = buffer.slice(start);
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  // -- API
  let token = null;
  let tokenRequest = null;

  function fetchToken() {
    tokenRequest = fetch(tokenEndpoint, { credentials: "include", headers: { Accept: "application/json, text/plain" } })
      .then((res) => (res.ok ? res.text() : ""))
      .then((body) => {
        const text = body.trim();
        let value = text;
        if (text[0] === "{") {
          try {
            value = JSON.parse(text).token || "";
          } catch {
            value = "";
          }
        }
        if (value) token = value;
      })
      .catch(() => {});
    return tokenRequest;
  }

  async function api(path, init) {
    if (tokenEndpoint && !token && !tokenRequest) fetchToken();
    if (tokenRequest) await tokenRequest;
    const headers = Object.assign(init.body ? { "Content-Type": "application/json" } : {}, init.headers);
    if (token) headers.Authorization = "Bearer " + token;
    return fetch(endpoint + path, Object.assign({}, init, { headers }));
  }

  async function errorOf(res) {
    try {
      const body = await res.json();
      return body && body.error ? body.error : null;
    } catch {
      return null;
    }
  }

  // -- offline search
  const loaded = {};
  function loadScript(url) {
    return (loaded[url] =
      loaded[url] ||
      new Promise((ok, fail) => {
        const el = document.createElement("script");
        el.src = url;
        el.onload = ok;
        el.onerror = () => fail(new Error("load " + url));
        document.head.append(el);
      }));
  }
  async function getJSON(url) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(res.status + " " + url);
    return res.json();
  }
  function once(make) {
    let promise = null;
    return () => {
      promise = promise || make();
      promise.catch(() => (promise = null));
      return promise;
    };
  }
  const base = siteRoot + "_askdocs/";
  const loadManifest = once(() => getJSON(base + "manifest.json"));
  const loadOfflineIndex = once(fetchOfflineIndex);
  const pick = (m, role, loc) => (m.files || []).find((f) => f.role === role && f.locale === loc);

  async function fetchOfflineIndex() {
    const m = await loadManifest();
    const loc = pick(m, "lunr", locale) ? locale : m.default_locale;
    const indexFile = pick(m, "lunr", loc);
    const docsFile = pick(m, "search_docs", loc);
    if (!indexFile || !docsFile) throw new Error("no offline index for " + loc);
    const [indexJson, docs] = await Promise.all([
      getJSON(base + indexFile.path),
      getJSON(base + docsFile.path),
      window.lunr ? null : loadScript(base + "lunr/lunr.js"),
    ]);
    if (loc !== "en" && !window.lunr[loc]) {
      if (!window.lunr.stemmerSupport) await loadScript(base + "lunr/lunr.stemmer.support.js");
      await loadScript(base + "lunr/lunr." + loc + ".js");
    }
    return { index: window.lunr.Index.load(indexJson), docs, loc };
  }

  async function searchOffline(question) {
    const { index, docs, loc } = await loadOfflineIndex();
    const lunr = window.lunr;
    const tokenize = (lunr[loc] && lunr[loc].tokenizer) || lunr.tokenizer;
    // Terms, not a query string (":", "^", "~" stay plain), trimmed like the index's
    // trimmer ("pip?" -> "pip"), Unicode-aware ("¿cómo").
    const terms = tokenize(question)
      .map((tok) => String(tok).replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "").replace(/\*/g, ""))
      .filter(Boolean);
    const hits = terms.length
      ? index.query((q) => {
          for (const term of terms) {
            q.term(term, { boost: 10 });
            if (term.length > 2) q.term(term, { usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING });
          }
        })
      : [];
    const seen = new Set();
    const pages = [];
    for (const hit of hits) {
      const ref = docs.refs[hit.ref];
      const page = ref && docs.pages[ref[0]];
      if (!page || seen.has(ref[0])) continue;
      seen.add(ref[0]);
      const title = ref[2] && ref[2] !== page[1] ? page[1] + " › " + ref[2] : page[1];
      pages.push({ url: page[0] + (ref[1] ? "#" + ref[1] : ""), title });
      if (pages.length === 5) break;
    }
    return pages;
  }

  // -- state
  let messages = [];
  let current = null;
  let returnFocus = null;

  function load() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(STORE_KEY) || "[]");
      if (!Array.isArray(saved)) return [];
      return saved.filter((m) => m && (m.role === "user" || m.role === "assistant"));
    } catch {
      return [];
    }
  }
  function save() {
    try {
      if (messages.length) sessionStorage.setItem(STORE_KEY, JSON.stringify(messages.slice(-MAX_STORED)));
      else sessionStorage.removeItem(STORE_KEY);
    } catch {
      /* storage full or disabled */
    }
  }

  function historyFor(turn) {
    const before = messages.slice(0, messages.indexOf(turn) - 1);
    const usable = before
      .filter((m) => m.role === "user" || (m.content && (m.state === "done" || m.state === "stopped")))
      .slice(-HISTORY_TURNS)
      .map((m) => ({ role: m.role, content: m.content.slice(0, HISTORY_TURN_CHARS) }));
    let total = usable.reduce((n, m) => n + m.content.length, 0);
    while (total > HISTORY_TOTAL_CHARS && usable.length) total -= usable.shift().content.length;
    return usable;
  }

  // -- UI
  const host = document.createElement("div");
  host.id = "askdocs-widget";
  const shadow = host.attachShadow({ mode: "open" });
  // Keys typed here are not the page's shortcuts ("n"/"p"/"s" in MkDocs).
  for (const type of ["keydown", "keypress", "keyup"]) {
    host.addEventListener(type, (event) => event.stopPropagation());
  }
  const root = h("div", { class: "root" });
  // A constructed stylesheet passes a CSP without 'unsafe-inline'.
  if (shadow.adoptedStyleSheets && window.CSSStyleSheet && CSSStyleSheet.prototype.replaceSync) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    shadow.adoptedStyleSheets = [sheet];
  } else {
    shadow.append(h("style", { text: CSS }));
  }
  shadow.append(root);

  const launcher = h(
    "button",
    {
      type: "button",
      class: "launcher",
      "data-askdocs": "launcher",
      "aria-haspopup": "dialog",
      "aria-expanded": "false",
      "aria-label": t("title"),
      "aria-keyshortcuts": "Control+K Meta+K",
      onclick: () => open(),
    },
    icon("spark"),
    h("span", { class: "txt", text: t("title") }),
    h("kbd", { "aria-hidden": "true", text: isMac ? "⌘K" : "Ctrl K" })
  );

  const input = h("textarea", {
    "data-askdocs": "input",
    rows: "1",
    maxlength: String(MAX_INPUT),
    placeholder: t("placeholder"),
    "aria-label": t("placeholder"),
    "aria-autocomplete": "list",
    "aria-controls": "askdocs-hits",
    enterkeyhint: "send",
  });
  const sendBtn = h("button", {
    type: "button",
    class: "go",
    "data-askdocs": "send",
    icon: "send",
    "aria-label": t("send"),
    title: t("send"),
    disabled: true,
    onclick: () => submit(),
  });
  const stopBtn = h("button", {
    type: "button",
    class: "go stop",
    "data-askdocs": "stop",
    icon: "stop",
    "aria-label": t("stop"),
    title: t("stop"),
    hidden: true,
    onclick: () => stop(),
  });
  const statusText = h("span");
  const status = h("div", { class: "status", "data-askdocs": "status", hidden: true }, h("span", { class: "spin" }), statusText);
  const live = h("div", { class: "vh", "aria-live": "polite", "aria-atomic": "true" });
  const suggestions = h("div", { class: "sugg", hidden: true });
  const empty = h(
    "div",
    { class: "empty" },
    h("div", { class: "mark", icon: "spark" }),
    h("h3", { text: t("emptyTitle") }),
    h("p", { text: t("emptyText") }),
    suggestions
  );
  const hitList = h("div", { role: "listbox", id: "askdocs-hits", "data-askdocs": "hits", "aria-label": t("jump") });
  // mousedown would move focus off the input first.
  const hits = h("div", { class: "hits", hidden: true, onmousedown: (event) => event.preventDefault() }, hitList);
  const scrim = h("div", { class: "scrim", hidden: true, onclick: () => close() });
  const log = h("div", { class: "log", tabindex: "-1" }, empty);
  const newBtn = iconButton("edit", t("newChat"), () => newConversation(true));
  const panel = h(
    "div",
    {
      class: "panel",
      "data-askdocs": "panel",
      role: "dialog",
      "aria-modal": "true",
      "aria-labelledby": "askdocs-title",
      "aria-describedby": "askdocs-sub",
      hidden: true,
    },
    h(
      "div",
      { class: "head" },
      h("div", { class: "mark", icon: "spark" }),
      h(
        "div",
        { class: "titles" },
        h("h2", { id: "askdocs-title", text: t("title") }),
        h("p", { class: "sub", id: "askdocs-sub", text: t("subtitle") })
      ),
      newBtn,
      iconButton("close", t("close"), () => close())
    ),
    h("div", { class: "body" }, log, hits, status),
    h(
      "div",
      { class: "composer" },
      h("div", { class: "box" }, input, sendBtn, stopBtn),
      h(
        "div",
        { class: "foot" },
        h("span", { class: "hint", text: t("hint") }),
        supportUrl && resolve(supportUrl)
          ? h("a", { href: resolve(supportUrl).href, text: t("support") })
          : null
      )
    )
  );
  root.append(launcher, scrim, panel, live);

  function setStatus(text) {
    statusText.textContent = text || "";
    status.hidden = !text;
  }
  function setBusy(busy) {
    stopBtn.hidden = !busy;
    sendBtn.hidden = busy;
    refreshSend();
  }
  function refreshSend() {
    sendBtn.disabled = !input.value.trim() || !!current;
  }
  function announce(text) {
    live.textContent = "";
    setTimeout(() => {
      live.textContent = text;
    }, 60);
  }
  function syncEmpty() {
    empty.hidden = messages.length > 0;
    newBtn.hidden = messages.length === 0;
  }

  function follow(view, force) {
    if (!force && log.scrollHeight - log.scrollTop - log.clientHeight > 90) return;
    const question = view.el.previousElementSibling;
    const limit = question ? question.offsetTop - 12 : Infinity;
    log.scrollTop = Math.min(log.scrollHeight - log.clientHeight, limit);
  }

  function renderUser(msg) {
    const el = h("div", { class: "user" }, h("span", { class: "vh", text: t("you") + ": " }), msg.content);
    log.append(el);
    return el;
  }

  const views = new WeakMap();

  function renderAssistant(turn, replacing) {
    const el = h("article", { class: "answer", "data-askdocs": "answer", "aria-label": t("answer") });
    const body = h("div", { class: "md" });
    const extras = h("div", { class: "extras" });
    el.append(body, extras);
    if (replacing) replacing.replaceWith(el);
    else log.append(el);
    let frame = 0;
    const view = {
      el,
      update() {
        if (frame) return;
        frame = requestAnimationFrame(() => {
          frame = 0;
          view.paintBody();
          follow(view, false);
        });
      },
      paintBody() {
        body.replaceChildren();
        view.cited = renderAnswer(turn.content, body);
        body.toggleAttribute("data-streaming", turn.state === "streaming");
      },
      paint() {
        cancelAnimationFrame(frame);
        frame = 0;
        view.paintBody();
        view.clearNotice();
        paintExtras(turn, view, extras);
        el.classList.toggle("unanswered", turn.answered === false);
        el.setAttribute("aria-busy", String(turn.state === "streaming"));
        body.hidden = !turn.content && turn.state !== "streaming";
      },
      notice(kind, text, withRetry) {
        view.clearNotice();
        view.noticeEl = noticeEl(kind, text, withRetry ? () => retry(turn) : null);
        body.after(view.noticeEl);
        follow(view, false);
      },
      clearNotice() {
        if (view.noticeEl) view.noticeEl.remove();
        view.noticeEl = null;
      },
    };
    views.set(turn, view);
    view.paint();
    return view;
  }

  function noticeEl(kind, text, onRetry) {
    return h(
      "div",
      { class: "note " + kind, role: kind === "err" ? "alert" : null },
      icon("alert"),
      h("span", { class: "txt", text }),
      onRetry ? h("button", { type: "button", class: "btn", onclick: onRetry }, icon("retry"), t("retry")) : null
    );
  }

  function paintExtras(turn, view, into) {
    into.replaceChildren();
    const state = turn.state;
    if (state === "streaming") return;
    const retryable = state === "error" || state === "stopped" || state === "dropped" || state === "offline";
    if (state === "offline") {
      into.append(noticeEl("info", turn.notice, () => retry(turn)));
    } else if (turn.notice) {
      into.append(noticeEl(state === "stopped" ? "info" : "err", turn.notice, retryable ? () => retry(turn) : null));
    }
    if (turn.mode === "extractive-fallback") into.append(noticeEl("info", t("fallbackMode")));
    if (turn.respelled && turn.respelled.length)
      into.append(noticeEl("info", t("respelled", turn.respelled.map(([a, b]) => `“${a}” → “${b}”`).join(", "))));
    const escalation = turn.escalation && resolve(turn.escalation.url);
    const external = escalation && escalation.origin !== location.origin;
    const escalate =
      escalation &&
      h(
        "a",
        {
          class: "esc",
          "data-askdocs": "escalation",
          href: escalation.href,
          target: external ? "_blank" : null,
          rel: external ? "noopener noreferrer" : null,
        },
        turn.escalation.text || t("support"),
        icon("arrow")
      );
    let sources = null;
    const cites = unshown(turn, view);
    if (cites.length) {
      const list = h("ul");
      for (const c of cites)
        list.append(h("li", null, citation(sameSite(c.url), (turn.state === "offline" ? "" : t("from")) + (c.title || c.url))));
      sources = h("div", { class: "src" }, h("p", { class: "lbl", text: t("sources") }), list);
    }
    const parts = state === "offline" ? [sources, escalate] : [escalate, sources];
    into.append(...parts.filter(Boolean));
    if (turn.content && state !== "offline") {
      const copyBtn = iconButton("copy", t("copy"), () => copyText(answerText(turn), copyBtn));
      const fb = h("span", { class: "fb", role: "status" });
      const acts = h("div", { class: "acts" }, copyBtn);
      if (turn.answer_id) {
        const vote = (value) => () => sendFeedback(turn, value, up, down, fb);
        const up = iconButton("up", t("up"), vote("up"), { "data-askdocs": "feedback-up", "aria-pressed": String(turn.vote === "up") });
        const down = iconButton("up", t("down"), vote("down"), {
          class: "ib dn",
          "data-askdocs": "feedback-down",
          "aria-pressed": String(turn.vote === "down"),
        });
        if (turn.vote) fb.textContent = t("thanks");
        acts.append(up, down);
      }
      acts.append(fb);
      into.append(acts);
    }
  }

  const unshown = (turn, view) => (turn.citations || []).filter((c) => c && c.url && !view.cited.has(sameSite(c.url)));

  function citation(href, label) {
    const text = h("span", { text: label });
    return href
      ? h("a", { class: "cite", "data-askdocs": "citation", href, title: label, onclick: onCitation }, icon("doc"), text)
      : h("span", { class: "cite", "data-askdocs": "citation" }, text);
  }

  function answerText(turn) {
    const cites = unshown(turn, views.get(turn))
      .map((c) => "- " + (c.title || c.url) + ": " + ((resolve(c.url) || {}).href || c.url))
      .join("\n");
    return turn.content + (cites ? "\n\n" + t("sources") + ":\n" + cites : "");
  }

  function onCitation(event) {
    const url = new URL(event.currentTarget.href);
    hideHits();
    if (url.pathname === location.pathname && url.hash && !docked) close();
  }

  async function copyText(text, button) {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = h("textarea", { class: "vh", "aria-hidden": "true" });
      area.value = text;
      root.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
      button.focus();
    }
    button.replaceChildren(icon("check"));
    const label = button.getAttribute("aria-label");
    button.setAttribute("aria-label", t("copied"));
    setTimeout(() => {
      button.replaceChildren(icon("copy"));
      button.setAttribute("aria-label", label);
    }, 1600);
  }

  async function sendFeedback(turn, vote, up, down, fb) {
    up.disabled = down.disabled = true;
    try {
      const res = await api("/api/feedback", {
        method: "POST",
        body: JSON.stringify({ answer_id: turn.answer_id, vote }),
      });
      if (!res.ok) throw new Error(String(res.status));
      turn.vote = vote;
      save();
      up.setAttribute("aria-pressed", String(vote === "up"));
      down.setAttribute("aria-pressed", String(vote === "down"));
      fb.textContent = t("thanks");
    } catch {
      fb.textContent = t("feedbackFailed");
    } finally {
      up.disabled = down.disabled = false;
    }
  }

  // -- asking
  function statusOf(name, data) {
    if (name === "status") {
      if (data.stage === "reading") return data.detail ? t("reading", data.detail) : t("readingAny");
      if (data.stage === "answering") return t("answering");
      if (data.stage === "searching") return t("searching");
      return data.detail || t("working");
    }
    const args = data.args || {};
    if (data.name === "cat") return args.path ? t("reading", args.path) : t("readingAny");
    if (data.name === "ls") return t("browsing", args.path || "/");
    if (data.name === "find") return t("finding", args.name || "");
    if (data.name === "grep") return t("grepping", args.pattern || "");
    return t("working");
  }

  function submit() {
    const text = input.value.trim();
    if (!text || current) return;
    hideHits();
    input.value = "";
    autosize();
    ask(text);
  }

  function ask(text) {
    const question = String(text || "").trim().slice(0, MAX_INPUT);
    if (!question || current) return;
    if (panel.hidden) open();
    const user = { role: "user", content: question };
    messages.push(user);
    renderUser(user);
    run(user);
  }

  function retry(turn) {
    if (current) {
      if (current.turn === turn) current.controller.abort("again");
      return;
    }
    const at = messages.indexOf(turn);
    const user = messages[at - 1];
    if (!user || user.role !== "user") return;
    messages.splice(at, 1);
    run(user, false, views.get(turn).el);
  }

  function stop() {
    if (current) current.controller.abort("stop");
  }

  async function run(user, reauthorized, replacing) {
    const turn = { role: "assistant", content: "", state: "streaming" };
    messages.splice(messages.indexOf(user) + 1, 0, turn);
    syncEmpty();
    const view = renderAssistant(turn, replacing);
    const controller = new AbortController();
    current = { turn, view, controller };
    setBusy(true);
    setStatus(t("searching"));
    follow(view, true);
    save();

    let heard = false;
    let finished = false;
    let stalled = false;
    let timer = 0;
    const alive = () => {
      clearTimeout(timer);
      if (stalled) {
        stalled = false;
        view.clearNotice();
      }
      timer = setTimeout(() => {
        stalled = true;
        view.notice("", t("stalled"), true);
      }, stallMs);
    };
    const onEvent = (name, raw) => {
      let data;
      try {
        data = JSON.parse(raw);
      } catch {
        return false;
      }
      if (!data || typeof data !== "object") return false;
      if (name === "status" || name === "tool") setStatus(statusOf(name, data));
      else if (name === "token") {
        if (statusText.textContent !== t("answering")) setStatus(t("answering"));
        turn.content += typeof data.text === "string" ? data.text : "";
        view.update();
      } else if (name === "done") {
        Object.assign(turn, {
          state: "done",
          answer_id: data.answer_id || null,
          answered: data.answered !== false,
          mode: data.mode || null,
          citations: Array.isArray(data.citations) ? data.citations : [],
          escalation: data.escalation && data.escalation.url ? data.escalation : null,
          respelled: Object.entries(Object(data.respelled)).slice(0, 5),
        });
        finished = true;
        return true;
      } else if (name === "error") {
        Object.assign(turn, { state: "error", notice: t("failed", data.message || data.code || "error") });
        finished = true;
        return true;
      }
      return false;
    };

    let outcome = null;
    const activity = () => {
      heard = true;
      alive();
    };
    alive();
    try {
      const res = await api("/api/chat", {
        method: "POST",
        headers: { Accept: "text/event-stream" },
        body: JSON.stringify({ message: user.content, locale, history: historyFor(turn), page_url: pagePath() }),
        signal: controller.signal,
      });
      const isStream = (res.headers.get("content-type") || "").includes("text/event-stream");
      if (!res.ok || !isStream) {
        const err = await errorOf(res);
        if (res.status === 401 && tokenEndpoint && !reauthorized) outcome = "reauth";
        else if (err && res.status === 401) outcome = t("unauthorized");
        else if (err && res.status === 429) outcome = t("rateLimited");
        else if (err && res.status === 413) outcome = t("tooLarge");
        else if (err && res.status === 400) outcome = t("failed", err.message || err.code);
        else outcome = "offline"; // no runtime: 404, 405, 5xx, HTML…
      } else {
        await readEvents(res.body, onEvent, activity);
        if (!finished) outcome = "dropped";
      }
    } catch (err) {
      if (controller.signal.aborted) {
        const reason = controller.signal.reason;
        outcome = typeof reason === "string" ? reason : "stop";
      }
      else outcome = finished ? null : heard ? "dropped" : "offline";
    }
    clearTimeout(timer);

    if (outcome === "reset") return;
    if (outcome === "reauth" || outcome === "again") {
      finish(turn, view);
      messages.splice(messages.indexOf(turn), 1);
      if (outcome === "reauth") {
        token = null;
        await fetchToken();
      }
      return run(user, outcome === "reauth", view.el);
    }
    if (outcome === "stop") Object.assign(turn, { state: "stopped", notice: t("stopped") });
    else if (outcome === "dropped") Object.assign(turn, { state: "dropped", notice: t("dropped") });
    else if (outcome === "offline") {
      setStatus(t("searchingOffline"));
      try {
        const pages = await searchOffline(user.content);
        Object.assign(turn, {
          state: "offline",
          notice: pages.length ? t("offline") : t("offlineNone"),
          citations: pages,
        });
      } catch {
        Object.assign(turn, { state: "offline", notice: t("offlineFailed"), citations: [] });
      }
    } else if (typeof outcome === "string") Object.assign(turn, { state: "error", notice: outcome });
    if (supportUrl && !turn.escalation && (turn.state === "offline" || turn.answered === false))
      turn.escalation = { url: supportUrl, text: t("support") };
    finish(turn, view);
    view.paint();
    save();
    if (turn.state === "done") announce(t("announce", turn.content.slice(0, 600)));
    else if (turn.notice) announce(turn.notice);
  }

  function finish(turn, view) {
    if (current && current.turn === turn) current = null;
    setBusy(false);
    setStatus("");
    view.el.setAttribute("aria-busy", "false");
  }

  function newConversation(focus) {
    if (current) current.controller.abort("reset");
    current = null;
    setBusy(false);
    setStatus("");
    messages = [];
    save();
    for (const el of [...log.children]) if (el !== empty) el.remove();
    syncEmpty();
    if (focus && !panel.hidden) input.focus();
  }

  // -- suggested questions (by the build)
  const loadSuggestions = once(async () => {
    const file = pick(await loadManifest(), "suggestions", locale);
    const questions = file ? (await getJSON(base + file.path)).questions.slice(0, 6) : [];
    suggestions.replaceChildren(
      h("p", { class: "lbl", text: t("suggested") }),
      ...questions.map((q) => h("button", { type: "button", class: "chip", "data-askdocs": "suggestion", text: q, onclick: () => ask(q) }))
    );
    suggestions.hidden = !questions.length;
  });

  // -- search as you type
  // /api/search, else the Lunr shard (data-source says which).
  let hitTimer = 0;
  let hitSeq = 0;
  let selected = -1;
  let searchApi = true;

  async function findSections(q) {
    if (searchApi) {
      try {
        const res = await api("/api/search?k=6&locale=" + encodeURIComponent(locale) + "&q=" + encodeURIComponent(q), {});
        if (res.ok) {
          const results = (await res.json()).results;
          return ["api", results.map((r) => Object.assign(r, { title: r.heading && r.heading !== r.title ? r.title + " › " + r.heading : r.title }))];
        }
        if (res.status < 500 && res.status !== 404 && res.status !== 405) return ["api", []];
      } catch {
        /* unreachable, or not JSON: no runtime */
      }
      searchApi = false;
    }
    return ["lunr", await searchOffline(q)];
  }

  function searchAsYouType() {
    const q = input.value.trim();
    hideHits();
    // After a pause: each request counts against the rate limit.
    if (q.length < 2 || q.length > 100) return;
    const seq = hitSeq;
    hitTimer = setTimeout(async () => {
      let found;
      try {
        found = await findSections(q);
      } catch {
        return;
      }
      if (seq !== hitSeq || panel.hidden) return;
      const items = found[1]
        .map((hit, i) => {
          const href = sameSite(hit.url);
          return (
            href &&
            h(
              "a",
              { class: "hit", role: "option", id: "askdocs-hit-" + i, "data-askdocs": "hit", href, tabindex: "-1", "aria-selected": "false", onclick: onCitation },
              h("span", { class: "ht", text: hit.title }),
              hit.snippet ? h("span", { class: "hs", text: hit.snippet }) : null
            )
          );
        })
        .filter(Boolean);
      hitList.replaceChildren(...items);
      hitList.dataset.source = found[0];
      hits.hidden = !items.length;
    }, 250);
  }

  function hideHits() {
    clearTimeout(hitTimer);
    hitSeq++;
    hits.hidden = true;
    hitList.replaceChildren();
    select(-1);
  }

  function select(n) {
    const items = [...hitList.children];
    selected = n;
    items.forEach((el, i) => el.setAttribute("aria-selected", String(i === n)));
    if (items[n]) input.setAttribute("aria-activedescendant", items[n].id);
    else input.removeAttribute("aria-activedescendant");
  }

  // -- layout
  // Wide: a sheet beside the page, below its top bar (its search and links stay usable).
  // Narrower: a modal.
  const wide = matchMedia("(min-width: 1024px)");
  let docked = false;
  let restore = [];

  function setStyle(el, prop, value) {
    restore.push([el.style, prop, el.style[prop]]);
    el.style[prop] = value;
  }

  function layout() {
    for (const [style, prop, value] of restore.reverse()) style[prop] = value;
    restore = [];
    docked = !panel.hidden && wide.matches;
    panel.classList.toggle("dock", docked);
    panel.setAttribute("aria-modal", !docked);
    scrim.hidden = panel.hidden || docked;
    if (!docked) return;
    const x = (innerWidth - panel.offsetWidth) / 2;
    setStyle(document.documentElement, "paddingRight", panel.offsetWidth + "px");
    // A theme's absolute full-width box (readthedocs) is sized by the body.
    if (getComputedStyle(document.body).position === "static") setStyle(document.body, "position", "relative");
    let top = 0;
    for (const el of document.elementsFromPoint(x, 1)) {
      const box = el.getBoundingClientRect();
      if (el !== host && /fixed|sticky/.test(getComputedStyle(el).position) && box.top <= 1 && box.right > 2 * x && box.bottom < innerHeight / 3)
        top = Math.max(top, box.bottom);
    }
    setStyle(panel, "top", top + "px");
  }
  wide.addEventListener("change", layout);
  addEventListener("resize", () => panel.hidden || layout());

  // -- open/close, keyboard
  function open() {
    attach();
    if (panel.hidden) {
      const active = document.activeElement;
      returnFocus = active === host ? shadow.activeElement : active;
      panel.hidden = false;
      launcher.setAttribute("aria-expanded", "true");
      launcher.hidden = true;
      layout();
      loadSuggestions();
      log.scrollTop = log.scrollHeight;
    }
    input.focus();
  }

  function close() {
    if (panel.hidden) return;
    panel.hidden = true;
    hideHits();
    layout();
    launcher.hidden = false;
    launcher.setAttribute("aria-expanded", "false");
    const target = returnFocus && returnFocus.isConnected && returnFocus !== launcher ? returnFocus : launcher;
    returnFocus = null;
    target.focus();
  }

  function focusables() {
    return [...panel.querySelectorAll("a[href],button:not([disabled]),textarea,[tabindex]:not([tabindex='-1'])")].filter(
      (el) => el.getClientRects().length
    );
  }

  panel.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === "Tab" && !docked) {
      const items = focusables();
      if (!items.length) return;
      const active = shadow.activeElement;
      const first = items[0];
      const last = items[items.length - 1];
      if (!panel.contains(active) || (event.shiftKey && active === first)) {
        event.preventDefault();
        (event.shiftKey ? last : first).focus();
      } else if (!event.shiftKey && active === last) {
        event.preventDefault();
        first.focus();
      }
    }
  });

  function autosize() {
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight, 140) + "px";
    refreshSend();
  }
  input.addEventListener("input", () => {
    autosize();
    searchAsYouType();
  });
  input.addEventListener("keydown", (event) => {
    const items = hits.hidden ? [] : hitList.children;
    const n = items.length;
    if (event.isComposing) return;
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      if (items[selected]) items[selected].click();
      else submit();
    } else if ((event.key === "ArrowDown" || event.key === "ArrowUp") && n) {
      event.preventDefault();
      select(((selected + (event.key === "ArrowDown" ? 2 : n + 1)) % (n + 1)) - 1);
    } else if (event.key === "Escape" && n) {
      event.stopPropagation();
      hideHits();
    }
  });

  document.addEventListener(
    "keydown",
    (event) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === "k") {
        event.preventDefault();
        open();
      } else if (event.key === "Escape" && !panel.hidden && !panel.contains(event.composedPath()[0]) && [host, document.body].includes(document.activeElement)) {
        close();
      }
    },
    true
  );

  // -- theme
  function syncTheme() {
    const scheme = document.body && document.body.getAttribute("data-md-color-scheme");
    const html = document.documentElement;
    let mode = "";
    if (scheme) mode = scheme === "slate" ? "dark" : scheme === "default" ? "light" : "";
    else if (html.dataset.theme === "dark" || html.classList.contains("dark")) mode = "dark";
    else if (html.dataset.theme === "light") mode = "light";
    if (mode) host.setAttribute("data-theme", mode);
    else host.removeAttribute("data-theme");
  }

  // -- attach
  // Routers swap the page under us: keep our host in it.
  let watchedBody = null;
  const themeWatch = new MutationObserver(syncTheme);
  const domWatch = new MutationObserver(() => {
    if (!host.isConnected || watchedBody !== document.body) {
      attach();
      if (!panel.hidden) layout();
    }
  });

  function attach() {
    if (!document.body) return;
    if (!host.isConnected) document.body.append(host);
    if (watchedBody !== document.body) {
      watchedBody = document.body;
      domWatch.disconnect();
      domWatch.observe(document.documentElement, { childList: true });
      domWatch.observe(document.body, { childList: true });
      themeWatch.disconnect();
      const attributeFilter = ["data-md-color-scheme", "data-theme", "class"];
      themeWatch.observe(document.documentElement, { attributes: true, attributeFilter });
      themeWatch.observe(document.body, { attributes: true, attributeFilter });
    }
    syncTheme();
  }
  instance.attach = attach;

  function start() {
    messages = load();
    for (const msg of messages) {
      if (msg.role === "user") renderUser(msg);
      else {
        if (msg.state === "streaming") Object.assign(msg, { state: "stopped", notice: t("stopped") });
        renderAssistant(msg);
      }
    }
    syncEmpty();
    attach();
    const doc$ = window.document$;
    if (doc$ && typeof doc$.subscribe === "function") doc$.subscribe(() => attach());
    addEventListener("pagehide", save);
  }

  window.askdocs = {
    version: "1",
    open,
    close,
    ask,
    setToken(jwt) {
      token = jwt ? String(jwt) : null;
      tokenRequest = Promise.resolve();
    },
    newConversation: () => newConversation(false),
  };

  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start, { once: true });
})();
