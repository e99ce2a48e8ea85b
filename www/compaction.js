// The compaction panel: compact() through openAIChatGateway with this page's
// fetch, progress, cancel, and the marker appended to the history. The key
// lives in the form field and in this closure only: never stored, never sent
// anywhere but the base URL.
import * as kram from "kram-compaction";

const $ = (id) => document.getElementById(id);

export function setUpCompaction({ current, apply }) {
  const form = $("compact-form");
  if (typeof kram.compact !== "function" || typeof kram.openAIChatGateway !== "function") {
    for (const field of form.elements) field.disabled = true;
    $("compact-status").textContent = "This build of the package has no compact() yet.";
    return;
  }
  let controller;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const shown = current();
    if (!shown || controller) return;
    controller = new AbortController();
    const baseURL = $("base-url").value.trim().replace(/\/+$/, "");
    const gateway = kram.openAIChatGateway({
      baseURL,
      apiKey: $("api-key").value || undefined,
      fetch: (...args) => globalThis.fetch(...args),
    });
    busy(true);
    try {
      const marker = await kram.compact(gateway, $("model").value.trim(), shown.prepared.effective, {
        signal: controller.signal,
        onProgress: ({ done, total }) => progress(done, total),
      });
      apply([...shown.messages, marker]);
      $("compact-status").textContent = "Summary appended: the effective history now goes on from it, after the leading system messages.";
      const now = current();
      now.transcript.scrollTo(now.messages.length - 1);
    } catch (error) {
      showError(controller.signal.aborted ? "Cancelled: nothing was changed." : explain(error, baseURL));
    } finally {
      controller = undefined;
      busy(false);
    }
  });
  $("compact-cancel").addEventListener("click", () => controller?.abort(new DOMException("Cancelled", "AbortError")));
}

function busy(on) {
  $("compact-run").disabled = on;
  $("compact-cancel").disabled = !on;
  $("compact-progress").hidden = !on;
  if (on) {
    $("compact-bar").removeAttribute("value");
    $("compact-progress-text").textContent = "Waiting for the model…";
    $("compact-status").textContent = "Summarising…";
    $("compact-error").hidden = true;
  }
}

function progress(done, total) {
  $("compact-bar").max = total;
  $("compact-bar").value = done;
  $("compact-progress-text").textContent = `Part ${Math.min(done + 1, total)} of ${total}`;
}

function showError(words) {
  $("compact-status").textContent = "";
  $("compact-error").textContent = words;
  $("compact-error").hidden = false;
}

/** The failure in words: unreachable or refused by CORS, a status, or the package's reason. */
function explain(error, baseURL) {
  const causes = [];
  for (let e = error; e && causes.length < 5; e = e.cause) causes.push(e);
  const text = causes.map((e) => String(e?.message ?? e)).join(" ");
  if (causes.some((e) => e instanceof TypeError && /fetch|network|load failed/i.test(e.message))) {
    return `Could not reach ${baseURL}/chat/completions. The server may be down or the address wrong, or it does not allow requests from this page (CORS: it must answer with Access-Control-Allow-Origin).`;
  }
  // The package's gateways reject with a GatewayHttpError that carries the status.
  const status = causes.find((e) => typeof e?.status === "number")?.status;
  if (status === 401 || status === 403) {
    return `The server refused the key (${status}): check the API key. It said: ${text}`;
  }
  if (status) return `The server answered ${status}: ${text}`;
  return `Compaction failed: ${text}`;
}
