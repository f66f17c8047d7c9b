// The server's refusals in the page's language: an API error carries a code (see ui.js's api),
// and each code the start, lobby and account pages meet has a message in the "errors" catalogue.
// A code without one keeps the server's own (English) sentence.
import { t } from "./i18n.js";

/** The message of a failed request `err` ({code, message}) in the language in use, its
 * placeholders filled from `params` (what the page knows, e.g. the name it sent); `codes` names a
 * more precise message for some codes, e.g. `errorText(err, {}, { BAD_CREDENTIALS: "errors.passkeyRefused" })`. */
export function errorText(err, params = {}, codes = {}) {
  const code = err && err.code;
  const invalid = validationText(err);
  if (invalid) return invalid;
  if (code) {
    const key = codes[code] || `errors.${code}`;
    const text = t(key, params);
    if (text !== key) return text;
  }
  return (err && err.message) || t("errors.failed");
}

/** A refused field's message in the page's language (a VALIDATION_ERROR whose first detail has a
 * type the "errors" catalogue words: the server's own codes, e.g. NAME_BLANK, or pydantic's, e.g.
 * string_too_long, filled from the detail's context); else null. */
export function validationText(err) {
  const detail = err && err.code === "VALIDATION_ERROR" && Array.isArray(err.details) ? err.details[0] : null;
  if (!detail || !/^\w+$/.test(detail.type || "")) return null;
  const key = `errors.${detail.type}`;
  const text = t(key, detail.context || {});
  return text === key ? null : text;
}
