package dev.zaelimiter.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What applying the declarations under {@code zae.limiter} does to the store: one change per declared setting (a
 * level's limits, cascade policy or disabled mode, an entity record), plus the settings earlier declarations wrote
 * that the declarations no longer have, and warnings about the result.
 *
 * @param changes  every setting the declarations touch or would remove
 * @param warnings what is worth knowing about the result, such as a cascade whose parent has no limits
 */
public record DeclarationPlan(List<Change> changes, List<String> warnings) {

    public DeclarationPlan {
        changes = List.copyOf(changes);
        warnings = List.copyOf(warnings);
    }

    /** What happens to one setting. */
    public enum Kind {
        /** Declared, not in the store yet. */
        ADDED,
        /** Declared, the store holds something else. */
        CHANGED,
        /** Written by earlier declarations, no longer declared (removed only in {@code prune} mode). */
        REMOVED,
        /** Declared and already in the store as declared. */
        UNCHANGED
    }

    /**
     * One setting.
     *
     * @param kind    what happens to it
     * @param target  where: {@code system}, {@code resource R}, {@code entity E}, {@code entity E on R}
     * @param setting which: {@code limits}, {@code cascade}, {@code disabled} or {@code record}
     * @param before  the store's value, in words ({@code null}: not set)
     * @param after   the declared value, in words ({@code null}: removed)
     */
    public record Change(Kind kind, String target, String setting, String before, String after) {

        @Override
        public String toString() {
            return switch (kind) {
                case ADDED -> "+ " + target + " " + setting + ": " + after;
                case CHANGED -> "~ " + target + " " + setting + ": " + before + " -> " + after;
                case REMOVED -> "- " + target + " " + setting + ": " + before;
                case UNCHANGED -> "= " + target + " " + setting;
            };
        }
    }

    /** The changes that are not {@link Kind#UNCHANGED}: how the store differs from the declarations. */
    public List<Change> drift() {
        return changes.stream().filter(c -> c.kind() != Kind.UNCHANGED).toList();
    }

    /** How many changes of each kind. */
    public Map<Kind, Long> counts() {
        Map<Kind, Long> counts = new TreeMap<>();
        for (Kind kind : Kind.values()) {
            counts.put(kind, changes.stream().filter(c -> c.kind() == kind).count());
        }
        return counts;
    }

    /** {@code added 2, changed 1, removed 0, unchanged 7}. */
    public String summary() {
        Map<Kind, Long> counts = counts();
        return "added " + counts.get(Kind.ADDED) + ", changed " + counts.get(Kind.CHANGED) + ", removed "
                + counts.get(Kind.REMOVED) + ", unchanged " + counts.get(Kind.UNCHANGED);
    }
}
