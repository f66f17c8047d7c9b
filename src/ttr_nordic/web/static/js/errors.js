// The server's refusals in the page's language: an API error carries a code (see ui.js's api),
// and each code the start, lobby and account pages meet has a message in the "errors" catalogue.
// A code without one keeps the server's own (English) sentence.
import { t } from "./i18n.js";

/** The message of a failed request `err` ({code, message}) in the language in use, its
 * placeholders filled from `params` (what the page knows, e.g. the name it sent); `codes` names a
 * more precise message for some codes, e.g. `errorText(err, {}, { BAD_CREDENTIALS: "errors.passkeyRefused" })`. */
export function errorText(err, params = {}, codes = {}) {
  const code = err && err.code;
  if (code) {
    const key = codes[code] || `errors.${code}`;
    const text = t(key, params);
    if (text !== key) return text;
  }
  return (err && err.message) || t("errors.failed");
}
