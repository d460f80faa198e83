package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.RateLimiterAdmin;
import dev.zaelimiter.autoconfigure.LimitDeclarations;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.lang.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The changes the {@code ratelimits} endpoint makes, one method per action, and the actions themselves: each with
 * its path segment, the {@code zae.limiter.endpoint-writes} switch that enables it, and what it runs.
 */
final class EndpointChanges {

    /** What a change request carries, as the JSON body's members; absent members are {@code null}. */
    record Request(@Nullable String entity, @Nullable String resource, @Nullable String limits,
            @Nullable String mode, @Nullable String duration, @Nullable String parent) {
    }

    /** One write action of the endpoint. */
    enum Action {
        SET_LIMITS("set-limits", "limits", ZaeLimiterProperties.EndpointWrites::isLimits),
        DELETE_LIMITS("delete-limits", "limits", ZaeLimiterProperties.EndpointWrites::isLimits),
        SET_DISABLED("set-disabled", "switches", ZaeLimiterProperties.EndpointWrites::isSwitches),
        PAUSE("pause", "pauses", ZaeLimiterProperties.EndpointWrites::isPauses),
        RESUME("resume", "pauses", ZaeLimiterProperties.EndpointWrites::isPauses),
        SET_PARENT("set-parent", "parents", ZaeLimiterProperties.EndpointWrites::isParents);

        private final String path;
        private final String switchName;
        private final Predicate<ZaeLimiterProperties.EndpointWrites> enabled;

        Action(String path, String switchName, Predicate<ZaeLimiterProperties.EndpointWrites> enabled) {
            this.path = path;
            this.switchName = switchName;
            this.enabled = enabled;
        }

        /** The action whose path segment is {@code path}, or {@code null}. */
        @Nullable
        static Action of(String path) {
            return Arrays.stream(values()).filter(a -> a.path.equals(path)).findFirst().orElse(null);
        }

        /** The path segments of every action, in order. */
        static List<String> paths() {
            return Arrays.stream(values()).map(a -> a.path).toList();
        }

        String path() {
            return path;
        }

        boolean enabledBy(ZaeLimiterProperties.EndpointWrites writes) {
            return enabled.test(writes);
        }

        /** The property that switches this action on. */
        String switchProperty() {
            return "zae.limiter.endpoint-writes." + switchName;
        }

        /** Runs the action; returns what was done. */
        String run(EndpointChanges changes, Request r) {
            return switch (this) {
                case SET_LIMITS -> changes.setLimits(r.entity(), r.resource(), r.limits());
                case DELETE_LIMITS -> changes.deleteLimits(r.entity(), r.resource());
                case SET_DISABLED -> changes.setDisabled(r.entity(), r.resource(), r.mode());
                case PAUSE -> changes.pause(r.entity(), r.resource(), r.duration());
                case RESUME -> changes.resume(r.entity(), r.resource());
                case SET_PARENT -> changes.setParent(r.entity(), r.parent());
            };
        }
    }

    private final RateLimiter limiter;

    EndpointChanges(RateLimiter limiter) {
        this.limiter = limiter;
    }

    String setLimits(@Nullable String entity, @Nullable String resource, @Nullable String limits) {
        if (limits == null || limits.isBlank()) {
            throw new IllegalArgumentException("set-limits needs limits, such as 'rpm.capacity=100; tpm.capacity=5000'");
        }
        Map<String, Object> flat = new LinkedHashMap<>();
        for (String assignment : limits.split(";")) {
            int equals = assignment.indexOf('=');
            if (equals < 1) {
                throw new IllegalArgumentException("limits are name.property=value pairs separated by ';', not '"
                        + assignment.trim() + "'");
            }
            flat.put("limits." + assignment.substring(0, equals).trim(), assignment.substring(equals + 1).trim());
        }
        Map<String, ZaeLimiterProperties.LimitDeclaration> bound;
        try {
            bound = new Binder(new MapConfigurationPropertySource(flat))
                    .bind("limits", Bindable.mapOf(String.class, ZaeLimiterProperties.LimitDeclaration.class),
                            new NoUnboundElementsBindHandler(BindHandler.DEFAULT))
                    .orElseGet(Map::of);
        } catch (BindException e) {
            Throwable cause = e.getCause();
            if (cause instanceof UnboundConfigurationPropertiesException unbound) {
                throw new IllegalArgumentException("not a limit property: " + unbound.getUnboundProperties().stream()
                        .map(property -> property.getName().toString()).sorted().toList());
            }
            String value = e.getProperty() != null ? " '" + e.getProperty().getValue() + "'" : "";
            throw new IllegalArgumentException(e.getName() + ": cannot read" + value + " as "
                    + (e.getTarget().getType().resolve() != null ? "a " + e.getTarget().getType().resolve()
                            .getSimpleName().toLowerCase(Locale.ROOT) : "this setting")
                    + (cause != null ? " (" + cause.getMessage() + ")" : ""));
        }
        List<Limit> parsed = LimitDeclarations.limitsOf("limits", bound);
        RateLimiterAdmin admin = limiter.admin();
        if (entity != null) {
            admin.setLimits(entity, resource == null ? "_default_" : resource, parsed);
        } else if (resource != null) {
            admin.setResourceDefaults(resource, parsed);
        } else {
            admin.setSystemDefaults(parsed);
        }
        return "limits of " + level(entity, resource) + " set to " + parsed;
    }

    String deleteLimits(@Nullable String entity, @Nullable String resource) {
        RateLimiterAdmin admin = limiter.admin();
        if (entity != null) {
            admin.deleteLimits(entity, resource == null ? "_default_" : resource);
        } else if (resource != null) {
            admin.deleteResourceDefaults(resource);
        } else {
            admin.deleteSystemDefaults();
        }
        return "limits of " + level(entity, resource) + " deleted";
    }

    String setDisabled(@Nullable String entity, @Nullable String resource, @Nullable String mode) {
        if (mode == null) {
            throw new IllegalArgumentException("set-disabled needs mode: enabled, disabled, bypass or inherit");
        }
        if (entity == null && resource == null) {
            throw new IllegalArgumentException("set-disabled needs a resource, or an entity");
        }
        RateLimiterAdmin admin = limiter.admin();
        String level = resource == null ? "_default_" : resource;
        if (mode.equalsIgnoreCase("inherit")) {
            if (entity != null) {
                admin.clearEntityDisabled(entity, level);
            } else {
                admin.clearResourceDisabled(resource);
            }
            return level(entity, resource) + " inherits its mode";
        }
        DisabledMode disabled;
        try {
            disabled = DisabledMode.valueOf(mode.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("mode is enabled, disabled, bypass or inherit, not '" + mode + "'");
        }
        if (entity != null) {
            admin.setEntityDisabled(entity, level, disabled);
        } else {
            admin.setResourceDisabled(resource, disabled);
        }
        return level(entity, resource) + " is " + disabled.name().toLowerCase(Locale.ROOT);
    }

    String pause(@Nullable String entity, @Nullable String resource, @Nullable String duration) {
        if (resource == null || duration == null) {
            throw new IllegalArgumentException("pause needs a resource and a duration, such as 30s");
        }
        Duration length = DurationStyle.detectAndParse(duration);
        Instant until = entity == null ? limiter.pause(resource, length) : limiter.pause(entity, resource, length);
        return level(entity, resource) + " paused until " + until;
    }

    String resume(@Nullable String entity, @Nullable String resource) {
        if (resource == null) {
            throw new IllegalArgumentException("resume needs a resource");
        }
        if (entity == null) {
            limiter.resume(resource);
        } else {
            limiter.resume(entity, resource);
        }
        return level(entity, resource) + " resumed";
    }

    String setParent(@Nullable String entity, @Nullable String parent) {
        if (entity == null) {
            throw new IllegalArgumentException("set-parent needs an entity");
        }
        limiter.admin().setParent(entity, parent);
        return "entity " + entity + (parent == null ? " is a root" : " is a child of " + parent);
    }

    static String level(@Nullable String entity, @Nullable String resource) {
        if (entity != null) {
            return "entity " + entity + " on " + (resource == null ? "_default_" : resource);
        }
        return resource == null ? "system" : "resource " + resource;
    }
}
