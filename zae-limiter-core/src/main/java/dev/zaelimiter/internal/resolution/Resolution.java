package dev.zaelimiter.internal.resolution;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Limit;

import java.util.ArrayList;
import java.util.List;

/**
 * The configuration that applies to one entity on one resource.
 *
 * @param limits   the limits in force; empty when no level defines any
 * @param carried  stored limits that a per-call override leaves out: the bucket keeps them (refilled, never
 *                 checked or consumed) so that an override cannot reset them; empty without an override
 * @param source   where the limits came from
 * @param disabled the resolved disabled mode
 * @param parentId the parent to cascade to, or {@code null} when the call does not cascade
 * @param stored   the limits the stored configuration defines, whether or not a per-call override replaced them
 */
public record Resolution(List<Limit> limits, List<Limit> carried, LimitSource source, DisabledMode disabled,
        String parentId, List<Limit> stored) {

    public Resolution {
        limits = List.copyOf(limits);
        carried = List.copyOf(carried);
        stored = List.copyOf(stored);
    }

    /** A resolution without a per-call override: the stored limits are {@code limits}. */
    public Resolution(List<Limit> limits, List<Limit> carried, LimitSource source, DisabledMode disabled,
            String parentId) {
        this(limits, carried, source, disabled, parentId, limits);
    }

    /** Every limit the bucket holds after this call: {@link #limits()} then {@link #carried()}. */
    public List<Limit> bucketLimits() {
        if (carried.isEmpty()) {
            return limits;
        }
        List<Limit> all = new ArrayList<>(limits);
        all.addAll(carried);
        return all;
    }

    /**
     * The limits the bucket keeps between calls: {@link #bucketLimits()}, except that a limit of a per-call override
     * that the stored configuration also defines is kept as stored. The override decides the admission of its call
     * only; the shared bucket refills, caps and is read by everyone else under the stored limit.
     */
    public List<Limit> keptLimits() {
        List<Limit> bucket = bucketLimits();
        if (source != LimitSource.OVERRIDE || stored.isEmpty()) {
            return bucket;
        }
        List<Limit> kept = new ArrayList<>(bucket.size());
        boolean replaced = false;
        for (Limit limit : bucket) {
            Limit same = limit;
            for (Limit s : stored) {
                if (s.name().equals(limit.name())) {
                    same = s;
                    break;
                }
            }
            replaced |= !same.equals(limit);
            kept.add(same);
        }
        return replaced ? List.copyOf(kept) : bucket;
    }

    public boolean cascades() {
        return parentId != null;
    }

    /** The limit named {@code name}, or {@code null}. */
    public Limit limit(String name) {
        for (Limit limit : limits) {
            if (limit.name().equals(name)) {
                return limit;
            }
        }
        return null;
    }
}
