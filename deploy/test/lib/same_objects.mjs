// Compares two renderings of one overlay (by two kubectl versions) object by
// object. The overlays must give the same objects whichever kubectl renders
// them (deploy/README.md); the one allowed difference is the hash suffix of a
// generated ConfigMap's or Secret's name, since kustomize v2 and v5 hash
// differently. Such a name is compared, wherever it occurs, as NAME-<hash>.

const HASHED_NAME = /^(.+)-[a-z0-9]{10}$/;

// Kind/namespace/name, or Kind/name for a cluster-scoped object.
function key(object) {
  const { namespace, name } = object.metadata ?? {};
  return namespace ? `${object.kind}/${namespace}/${name}` : `${object.kind}/${name}`;
}

// Maps every hashed generated name to NAME-<hash>.
function hashedNames(objects) {
  const names = new Map();
  for (const object of objects) {
    if (object.kind !== "ConfigMap" && object.kind !== "Secret") continue;
    const match = HASHED_NAME.exec(object.metadata?.name ?? "");
    if (match) names.set(object.metadata.name, `${match[1]}-<hash>`);
  }
  return names;
}

// A copy of `value` with every string equal to a hashed name replaced.
function withoutHashes(value, names) {
  if (typeof value === "string") return names.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => withoutHashes(item, names));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([field, item]) => [field, withoutHashes(item, names)]),
    );
  }
  return value;
}

// The first path at which `a` and `b` differ, or undefined when they are equal.
function firstDifference(a, b, path = "") {
  if (a === b) return undefined;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return `${path || "."}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path || "."}: list vs map`;
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const difference = firstDifference(a[field], b[field], `${path}.${field}`);
    if (difference) return difference;
  }
  return undefined;
}

// One message per object that is missing from either rendering or differs
// between them; [] when both hold the same objects. `nameA` and `nameB`
// label the renderings in the messages (e.g. the kubectl versions).
export function compareRenderings(objectsA, objectsB, nameA, nameB) {
  const index = (objects) => {
    const names = hashedNames(objects);
    return new Map(
      objects.map((object) => withoutHashes(object, names)).map((object) => [key(object), object]),
    );
  };
  const a = index(objectsA);
  const b = index(objectsB);
  const errors = [];
  for (const [name, object] of a) {
    if (!b.has(name)) {
      errors.push(`${name}: rendered by ${nameA} only`);
      continue;
    }
    const difference = firstDifference(object, b.get(name));
    if (difference) errors.push(`${name} differs (${nameA} vs ${nameB}) at ${difference}`);
  }
  for (const name of b.keys()) {
    if (!a.has(name)) errors.push(`${name}: rendered by ${nameB} only`);
  }
  return errors;
}
