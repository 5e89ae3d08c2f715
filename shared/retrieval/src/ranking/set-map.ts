/** Key → set of paths, the shape of every lookup table of the index; empty sets are dropped. */

export function addTo(map: Map<string, Set<string>>, key: string, path: string): void {
  const set = map.get(key);
  if (set === undefined) map.set(key, new Set([path]));
  else set.add(path);
}

export function deleteFrom(map: Map<string, Set<string>>, key: string, path: string): void {
  const set = map.get(key);
  set?.delete(path);
  if (set?.size === 0) map.delete(key);
}
