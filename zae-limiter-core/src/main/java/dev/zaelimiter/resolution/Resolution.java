package dev.zaelimiter.resolution;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Limit;

import java.util.List;

/**
 * The configuration that applies to one entity on one resource.
 *
 * @param limits   the limits in force; empty when no level defines any
 * @param source   where they came from
 * @param disabled the resolved disabled mode
 * @param parentId the parent to cascade to, or {@code null} when the call does not cascade
 */
public record Resolution(List<Limit> limits, LimitSource source, DisabledMode disabled, String parentId) {

    public Resolution {
        limits = List.copyOf(limits);
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
