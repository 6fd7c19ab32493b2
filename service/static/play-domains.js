// What an offered move mentions (the values a board click can match) and whether a formed value
// lies in its domain, as domain/choices.py admits it.

// ----- what an option mentions (for board clicks) ---------------------------------------------

// Every scalar inside a JSON value, as strings (object keys included).
function scalars(value, out) {
  if (Array.isArray(value)) value.forEach((v) => scalars(v, out));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      scalars(v, out);
    }
  } else if (value !== null && value !== undefined) out.add(String(value));
  return out;
}

// Every value a domain may put in its field.
function domainValues(domain, out) {
  if ("one_of" in domain) scalars(domain.one_of, out);
  else if ("subset_of" in domain) scalars(domain.subset_of, out);
  else if ("sequence_of" in domain) scalars(domain.sequence_of, out);
  else if ("union_of" in domain) domain.union_of.forEach((part) => domainValues(part, out));
  else if ("pairs" in domain) {
    for (const part of domain.pairs) {
      for (const side of [part.keys, part.values]) {
        if (Array.isArray(side)) scalars(side, out);
        else domainValues(side, out);
      }
    }
  }
  return out;
}

/** The values a listed command or a choice mentions: what a click on the board can match. */
export function mentioned(option) {
  const out = new Set();
  if (option.free) {
    scalars(option.fixed || {}, out);
    for (const domain of Object.values(option.free)) domainValues(domain, out);
  } else {
    for (const [key, value] of Object.entries(option)) if (key !== "type") scalars(value, out);
  }
  return out;
}

// ----- checking a formed value against its domain (as domain/choices.py admits it) ---------------

/** JSON equality of two values (key order ignored). */
export function same(a, b) {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

// A copy with object keys sorted, so equal values stringify alike.
function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k])]));
  }
  return value;
}

// Distinct members of a pool, between low and high of them.
function distinctMembers(value, pool, low, high) {
  if (!Array.isArray(value) || value.length < low || value.length > high) return false;
  const seen = [];
  for (const item of value) {
    if (!pool.some((p) => same(p, item)) || seen.some((s) => same(s, item))) return false;
    seen.push(item);
  }
  return true;
}

/** Why a value is not in a domain (a short sentence), or null when it is. */
export function domainProblem(domain, value) {
  if ("one_of" in domain) return domain.one_of.some((v) => same(v, value)) ? null : "choose one";
  if ("subset_of" in domain || "sequence_of" in domain) {
    const pool = domain.subset_of || domain.sequence_of;
    return distinctMembers(value, pool, domain.min, domain.max) ? null : `pick ${countWords(domain.min, domain.max)}`;
  }
  if ("union_of" in domain) {
    const counts = domain.union_of.map(() => 0);
    for (const item of value || []) {
      const owner = domain.union_of.findIndex((part) => part.subset_of.some((p) => same(p, item)));
      if (owner < 0) return "pick from the lists";
      counts[owner] += 1;
    }
    const bad = domain.union_of.findIndex((part, i) => counts[i] < part.min || counts[i] > part.max);
    return bad < 0 ? null : `pick ${countWords(domain.union_of[bad].min, domain.union_of[bad].max)} from group ${bad + 1}`;
  }
  if ("text" in domain) {
    const length = [...(value || "")].length;
    const { min_length: low, max_length: high } = domain.text;
    return typeof value === "string" && length >= low && length <= high ? null : `write ${low} to ${high} characters`;
  }
  return null; // pairs: the pickers keep every slot filled and each part's picks distinct
}


/** "2", "0 to 1", "1 to 3". */
export function countWords(low, high) {
  return low === high ? String(low) : `${low} to ${high}`;
}
