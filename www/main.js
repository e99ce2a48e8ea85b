// Loads the package in the browser and shows its version and one estimate.
import { estimateTokens, VERSION } from "kram-compaction";

const text = document.getElementById("text");
const show = () => {
  document.getElementById("tokens").textContent = String(estimateTokens([{ role: "user", content: text.value }]));
};
document.getElementById("version").textContent = VERSION;
text.addEventListener("input", show);
show();
