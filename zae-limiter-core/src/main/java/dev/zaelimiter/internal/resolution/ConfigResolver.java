package dev.zaelimiter.internal.resolution;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.store.ConfigSnapshot;

import java.util.List;

/**
 * Resolves a {@link ConfigSnapshot}. Limits: the first level that defines any supplies all of them (entity on the
 * resource, entity default, resource, system), unless the call brings its own. Disabled mode and cascade policy:
 * entity on the resource, entity default, resource; the first explicit value wins. With no cascade policy, the
 * entity's own flag decides; an entity without a parent never cascades.
 */
public final class ConfigResolver {

    private ConfigResolver() {
    }

    public static Resolution resolve(ConfigSnapshot snapshot, List<Limit> override) {
        LimitSource source;
        List<Limit> limits;
        if (snapshot.entityResource().limits() != null) {
            source = LimitSource.ENTITY_RESOURCE;
            limits = snapshot.entityResource().limits();
        } else if (snapshot.entityDefault().limits() != null) {
            source = LimitSource.ENTITY_DEFAULT;
            limits = snapshot.entityDefault().limits();
        } else if (snapshot.resource().limits() != null) {
            source = LimitSource.RESOURCE;
            limits = snapshot.resource().limits();
        } else if (snapshot.system().limits() != null) {
            source = LimitSource.SYSTEM;
            limits = snapshot.system().limits();
        } else {
            source = LimitSource.NONE;
            limits = List.of();
        }
        List<Limit> carried = List.of();
        List<Limit> storedLimits = limits;
        if (override != null) {
            carried = limits.stream()
                    .filter(stored -> override.stream().noneMatch(l -> l.name().equals(stored.name())))
                    .toList();
            limits = override;
            source = LimitSource.OVERRIDE;
        }
        return new Resolution(limits, carried, source, disabledMode(snapshot), cascadeParent(snapshot), storedLimits);
    }

    /** Entity on the resource, then entity default, then resource; unset enforces. */
    public static DisabledMode disabledMode(ConfigSnapshot snapshot) {
        DisabledMode mode = firstNonNull(snapshot.entityResource().disabled(), snapshot.entityDefault().disabled(),
                snapshot.resource().disabled());
        return mode == null ? DisabledMode.ENABLED : mode;
    }

    /** The parent a call should also debit, or {@code null}. */
    public static String cascadeParent(ConfigSnapshot snapshot) {
        Entity entity = snapshot.entity();
        if (entity == null || entity.parentId() == null) {
            return null;
        }
        Boolean policy = firstNonNull(snapshot.entityResource().cascade(), snapshot.entityDefault().cascade(),
                snapshot.resource().cascade());
        boolean cascade = policy != null ? policy : entity.cascade();
        return cascade ? entity.parentId() : null;
    }

    @SafeVarargs
    private static <T> T firstNonNull(T... values) {
        for (T value : values) {
            if (value != null) {
                return value;
            }
        }
        return null;
    }
}
