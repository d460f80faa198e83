package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiterAdmin;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.EntityDeclaration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.LimitDeclaration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.ResetDeclaration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.Resource;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.ScheduleDeclaration;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The limits, entities and switches declared under {@code zae.limiter}, checked as a whole before anything is
 * written, then applied to the store: declared items are written, items nobody declared are left alone.
 */
public final class LimitDeclarations {

    private static final String PREFIX = "zae.limiter";

    /** What one resource level (or one entity on one resource) declares; {@code null} fields are not declared. */
    public record LevelDeclaration(String resource, List<Limit> limits, Boolean cascade, DisabledMode disabled) {
    }

    /** One declared entity with its levels. */
    public record EntityLevels(Entity entity, DisabledMode disabled, List<LevelDeclaration> resources) {
    }

    private final List<Limit> system;
    private final List<LevelDeclaration> resources;
    private final List<EntityLevels> entities;

    private LimitDeclarations(List<Limit> system, List<LevelDeclaration> resources, List<EntityLevels> entities) {
        this.system = system;
        this.resources = resources;
        this.entities = entities;
    }

    /**
     * Converts and checks every declaration.
     *
     * @throws InvalidDeclarationException for the first declaration that breaks a rule, naming its property
     */
    public static LimitDeclarations from(ZaeLimiterProperties properties) {
        List<Limit> system = limits(PREFIX + ".system.limits", properties.getSystem().getLimits());
        List<LevelDeclaration> resources = new ArrayList<>();
        properties.getResources().forEach((name, resource) -> {
            String path = PREFIX + ".resources." + name;
            check(path, () -> Identifiers.resource("resource", name));
            resources.add(level(path, name, resource));
        });
        List<EntityLevels> entities = new ArrayList<>();
        properties.getEntities().forEach((id, declaration) -> {
            String path = PREFIX + ".entities." + id;
            check(path, () -> Identifiers.entityId("entity id", id));
            Entity entity = check(path, () -> new Entity(id, declaration.getName(), declaration.getParent(),
                    declaration.isCascade()));
            if (entity.parentId() != null) {
                EntityDeclaration parent = properties.getEntities().get(entity.parentId());
                if (parent != null && parent.getParent() != null) {
                    throw new InvalidDeclarationException(path + ".parent", "'" + entity.parentId()
                            + "' is itself a child of '" + parent.getParent() + "' and hierarchies have two levels;"
                            + " choose a root entity as parent");
                }
            }
            List<LevelDeclaration> levels = new ArrayList<>();
            declaration.getResources().forEach((resource, level) -> {
                String levelPath = path + ".resources." + resource;
                check(levelPath, () -> Identifiers.resourceOrDefault("resource", resource));
                levels.add(level(levelPath, resource, level));
            });
            entities.add(new EntityLevels(entity, declaration.getDisabled(), levels));
        });
        entities.sort(Comparator.comparing(e -> e.entity().parentId() != null));
        return new LimitDeclarations(system, resources, entities);
    }

    private static LevelDeclaration level(String path, String resource, Resource level) {
        List<Limit> limits = limits(path + ".limits", level.getLimits());
        return new LevelDeclaration(resource, limits, level.getCascade(), level.getDisabled());
    }

    /** The limits of one level, or {@code null} when it declares none. */
    private static List<Limit> limits(String path, Map<String, LimitDeclaration> declarations) {
        if (declarations.isEmpty()) {
            return null;
        }
        List<Limit> limits = new ArrayList<>();
        declarations.forEach((name, declaration) -> limits.add(limit(path + "." + name, name, declaration)));
        return check(path, () -> Limit.validateLevel("limits", limits));
    }

    static Limit limit(String path, String name, LimitDeclaration d) {
        if (d.getMaxInFlight() != null) {
            return concurrency(path, name, d);
        }
        if (d.getLeaseTimeout() != null) {
            throw new InvalidDeclarationException(path + ".lease-timeout", "only a concurrency limit has a lease"
                    + " timeout; add max-in-flight or remove lease-timeout");
        }
        if (d.getCapacity() == null) {
            throw new InvalidDeclarationException(path + ".capacity", "a limit needs a capacity (tokens per refill"
                    + " period, or a quota's allowance), or max-in-flight for a concurrency limit", "Write"
                    + " '" + path + ".capacity' as a whole number greater than zero, such as capacity: 100, or"
                    + " '" + path + ".max-in-flight' for a concurrency limit.");
        }
        boolean drips = d.getRefillAmount() != null || d.getRefillPeriod() != null || d.getBurst() != null;
        if (d.getResetSchedule().size() > 1) {
            throw new InvalidDeclarationException(path + ".reset-schedule", "a quota has one reset schedule;"
                    + " write a single entry (one cron can express several instants, such as '0 0 1,15 * *')");
        }
        if (!d.getResetSchedule().isEmpty() && d.getResetAfter() != null) {
            throw new InvalidDeclarationException(path + ".reset-after", "a quota resets on a calendar"
                    + " (reset-schedule) or after each caller's first request (reset-after), not both");
        }
        if (d.getFixedWindow() != null && (!d.getResetSchedule().isEmpty() || d.getResetAfter() != null)) {
            throw new InvalidDeclarationException(path + ".fixed-window", "a quota resets at every multiple of a"
                    + " fixed window (fixed-window), on a calendar (reset-schedule) or after each caller's first"
                    + " request (reset-after): choose one");
        }
        if (d.getWindowOrigin() != null && d.getFixedWindow() == null) {
            throw new InvalidDeclarationException(path + ".window-origin", "only a fixed window has an origin;"
                    + " add fixed-window or remove window-origin");
        }
        boolean resets = !d.getResetSchedule().isEmpty() || d.getResetAfter() != null || d.getFixedWindow() != null;
        if (drips && resets) {
            throw new InvalidDeclarationException(path + (d.getRefillAmount() != null ? ".refill-amount"
                    : d.getRefillPeriod() != null ? ".refill-period" : ".burst"), "a quota does not drip: remove"
                    + " refill-amount, refill-period and burst, or remove the reset to make it a rate limit");
        }
        Limit limit;
        if (d.getFixedWindow() != null) {
            limit = check(path + ".fixed-window", () -> d.getWindowOrigin() == null
                    ? Limit.fixedWindow(name, d.getCapacity(), d.getFixedWindow())
                    : Limit.fixedWindow(name, d.getCapacity(), d.getFixedWindow(), d.getWindowOrigin()));
        } else if (!d.getResetSchedule().isEmpty()) {
            ResetDeclaration reset = d.getResetSchedule().get(0);
            String resetPath = path + ".reset-schedule[0]";
            ZoneId zone = check(resetPath + ".tz", () -> ScheduleEntry.zone("tz", reset.getTz()));
            if (reset.getCron() == null) {
                throw new InvalidDeclarationException(resetPath + ".cron", "a reset schedule needs a cron");
            }
            limit = checkFields(path, resetPath, d, () -> Limit.quota(name, d.getCapacity(), reset.getCron(), zone));
        } else if (d.getResetAfter() != null) {
            limit = checkFields(path, path, d, () -> Limit.sessionQuota(name, d.getCapacity(), d.getResetAfter()));
        } else {
            long capacity = d.getBurst() != null ? d.getBurst() : d.getCapacity();
            long amount = d.getRefillAmount() != null ? d.getRefillAmount() : d.getCapacity();
            Duration period = d.getRefillPeriod() != null ? d.getRefillPeriod() : Duration.ofMinutes(1);
            limit = checkFields(path, path, d, () -> Limit.custom(name, capacity, amount, period));
        }
        if (!d.getSchedule().isEmpty()) {
            List<ScheduleEntry> entries = new ArrayList<>();
            for (int i = 0; i < d.getSchedule().size(); i++) {
                ScheduleDeclaration s = d.getSchedule().get(i);
                String entryPath = path + ".schedule[" + i + "]";
                ZoneId zone = check(entryPath + ".tz", () -> ScheduleEntry.zone("tz", s.getTz()));
                if (s.getCron() == null) {
                    throw new InvalidDeclarationException(entryPath + ".cron", "a schedule entry needs a cron");
                }
                entries.add(checkFields(entryPath, entryPath, null, () -> ScheduleEntry.of(s.getCron(), zone,
                        s.getScale(), s.getCapacity(), s.getRefillAmount(), s.getRefillPeriod())));
            }
            Limit base = limit;
            limit = check(path + ".schedule", () -> base.withSchedule(entries));
        }
        limit = d.isSoft() ? limit.soft() : limit;
        if (d.isLocalReservations()) {
            Limit base = limit;
            limit = check(path + ".local-reservations", base::withLocalReservations);
        }
        return limit;
    }

    private static Limit concurrency(String path, String name, LimitDeclaration d) {
        if (d.getCapacity() != null || d.getRefillAmount() != null || d.getRefillPeriod() != null
                || d.getBurst() != null || !d.getResetSchedule().isEmpty() || d.getResetAfter() != null
                || d.getFixedWindow() != null || d.getWindowOrigin() != null) {
            throw new InvalidDeclarationException(path + ".max-in-flight", "a concurrency limit has only"
                    + " max-in-flight (and lease-timeout, soft, schedule); remove capacity, refill, burst and resets,"
                    + " or declare them as a separate limit");
        }
        if (d.isLocalReservations()) {
            throw new InvalidDeclarationException(path + ".local-reservations", "a concurrency limit never reserves"
                    + " (a slot must be visible to every process); remove local-reservations");
        }
        Limit limit = check(path + ".max-in-flight", () -> d.getLeaseTimeout() == null
                ? Limit.concurrency(name, d.getMaxInFlight())
                : Limit.concurrency(name, d.getMaxInFlight(), d.getLeaseTimeout()));
        return d.isSoft() ? limit.soft() : limit;
    }

    private interface Check<T> {
        T get();
    }

    /**
     * Runs a check whose {@link ValidationException} names a field of the limit ({@code limit rpm capacity}) or of a
     * schedule entry; the property reported ends at that field: {@code path.capacity}, {@code cronPath.cron}.
     */
    private static <T> T checkFields(String path, String cronPath, LimitDeclaration d, Check<T> check) {
        try {
            return check.get();
        } catch (ValidationException e) {
            String field = e.field();
            String property;
            if (field.endsWith("cron") || field.endsWith("reset schedule")) {
                property = cronPath + ".cron";
            } else if (field.endsWith(" scale")) {
                property = path + ".scale";
            } else if (field.endsWith(" capacity")) {
                property = path + (d != null && d.getBurst() != null ? ".burst" : ".capacity");
            } else if (field.endsWith(" refillAmount")) {
                property = path + (d == null || d.getRefillAmount() != null ? ".refill-amount" : ".capacity");
            } else if (field.endsWith(" refillPeriod")) {
                property = path + ".refill-period";
            } else if (field.endsWith(" resetAfter")) {
                property = path + ".reset-after";
            } else if (d == null && e.getMessage().contains("not both")) {
                property = path + ".scale";
            } else {
                property = path;
            }
            throw new InvalidDeclarationException(property, e.getMessage());
        }
    }

    private static <T> T check(String path, Check<T> check) {
        try {
            return check.get();
        } catch (ValidationException e) {
            throw new InvalidDeclarationException(path, e.getMessage());
        }
    }

    /** Writes every declared item to the store behind {@code admin}; entities are created or updated, roots first. */
    public void applyTo(RateLimiterAdmin admin) {
        if (system != null) {
            admin.setSystemDefaults(system);
        }
        for (LevelDeclaration resource : resources) {
            if (resource.limits() != null) {
                admin.setResourceDefaults(resource.resource(), resource.limits());
            }
            if (resource.cascade() != null) {
                admin.setResourceCascade(resource.resource(), resource.cascade());
            }
            if (resource.disabled() != null) {
                admin.setResourceDisabled(resource.resource(), resource.disabled());
            }
        }
        for (EntityLevels declared : entities) {
            Entity entity = declared.entity();
            Optional<Entity> existing = admin.getEntity(entity.id());
            if (existing.isEmpty()) {
                admin.createEntity(entity);
            } else if (!existing.get().equals(entity)) {
                admin.updateEntity(entity);
            }
            if (declared.disabled() != null) {
                admin.setEntityDisabled(entity.id(), Identifiers.DEFAULT_RESOURCE, declared.disabled());
            }
            for (LevelDeclaration level : declared.resources()) {
                if (level.limits() != null) {
                    admin.setLimits(entity.id(), level.resource(), level.limits());
                }
                if (level.cascade() != null) {
                    admin.setEntityCascade(entity.id(), level.resource(), level.cascade());
                }
                if (level.disabled() != null) {
                    admin.setEntityDisabled(entity.id(), level.resource(), level.disabled());
                }
            }
        }
    }

    /** The declared system limits, or {@code null}. */
    public List<Limit> system() {
        return system;
    }

    public List<LevelDeclaration> resources() {
        return resources;
    }

    public List<EntityLevels> entities() {
        return entities;
    }
}
