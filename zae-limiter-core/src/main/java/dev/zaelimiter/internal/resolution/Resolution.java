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
 */
public record Resolution(List<Limit> limits, List<Limit> carried, LimitSource source, DisabledMode disabled,
        String parentId) {

    public Resolution {
        limits = List.copyOf(limits);
        carried = List.copyOf(carried);
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
