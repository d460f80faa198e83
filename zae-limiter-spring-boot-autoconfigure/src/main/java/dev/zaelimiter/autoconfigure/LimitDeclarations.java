package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditPage;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Names;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiterAdmin;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.EntityDeclaration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.LimitDeclaration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.ResetDeclaration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.Resource;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.ScheduleDeclaration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

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

    private static final Logger log = LoggerFactory.getLogger(LimitDeclarations.class);

    private final List<Limit> system;
    private final List<LevelDeclaration> resources;
    private final List<EntityLevels> entities;
    private final ZaeLimiterProperties.Declarations.Mode mode;
    private final ZaeLimiterProperties.Declarations.OnDrift onDrift;
    private final String actor;

    private LimitDeclarations(List<Limit> system, List<LevelDeclaration> resources, List<EntityLevels> entities,
            ZaeLimiterProperties properties, String applicationName) {
        this.system = system;
        this.resources = resources;
        this.entities = entities;
        this.mode = properties.getDeclarations().getMode();
        this.onDrift = properties.getDeclarations().getOnDrift();
        this.actor = properties.getAudit().declarationsActorOf(applicationName);
    }

    /**
     * Converts and checks every declaration.
     *
     * @throws InvalidDeclarationException for the first declaration that breaks a rule, naming its property
     */
    public static LimitDeclarations from(ZaeLimiterProperties properties) {
        return from(properties, null);
    }

    /**
     * Converts and checks every declaration of the application named {@code applicationName} (may be {@code null}),
     * whose changes are attributed to {@code declarations:{applicationName}} unless
     * {@code zae.limiter.audit.declarations-actor} says otherwise.
     *
     * @throws InvalidDeclarationException for the first declaration that breaks a rule, naming its property
     */
    public static LimitDeclarations from(ZaeLimiterProperties properties, String applicationName) {
        List<Limit> system = limits(PREFIX + ".system.limits", properties.getSystem().getLimits());
        List<LevelDeclaration> resources = new ArrayList<>();
        properties.getResources().forEach((name, resource) -> {
            String path = PREFIX + ".resources." + name;
            check(path, () -> Names.resource("resource", name));
            resources.add(level(path, name, resource));
        });
        List<EntityLevels> entities = new ArrayList<>();
        properties.getEntities().forEach((id, declaration) -> {
            String path = PREFIX + ".entities." + id;
            check(path, () -> Names.entityId("entity id", id));
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
                check(levelPath, () -> Names.resourceOrDefault("resource", resource));
                levels.add(level(levelPath, resource, level));
            });
            entities.add(new EntityLevels(entity, declaration.getDisabled(), levels));
        });
        entities.sort(Comparator.comparing(e -> e.entity().parentId() != null));
        return new LimitDeclarations(system, resources, entities, properties, applicationName);
    }

    private static LevelDeclaration level(String path, String resource, Resource level) {
        List<Limit> limits = limits(path + ".limits", level.getLimits());
        return new LevelDeclaration(resource, limits, level.getCascade(), level.getDisabled());
    }

    /**
     * Converts and checks the limits of one level written as declarations (for example in a request to the
     * actuator endpoint); {@code path} names them in errors.
     *
     * @throws InvalidDeclarationException for the first limit that breaks a rule, naming its property
     */
    public static List<Limit> limitsOf(String path, Map<String, LimitDeclaration> declarations) {
        List<Limit> limits = limits(path, declarations);
        if (limits == null) {
            throw new InvalidDeclarationException(path, "declare at least one limit");
        }
        return limits;
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

    /**
     * Runs a check whose {@link ValidationException} names a field of the limit ({@code limit rpm capacity}) or of a
     * schedule entry; the property reported ends at that field: {@code path.capacity}, {@code cronPath.cron}.
     */
    private static <T> T checkFields(String path, String cronPath, LimitDeclaration d, Supplier<T> check) {
        return InvalidDeclarationException.check(e -> {
            String field = e.field().substring(e.field().lastIndexOf(' ') + 1);
            return switch (field) {
                case "cron", "schedule" -> cronPath + ".cron";
                case "capacity" -> path + (d != null && d.getBurst() != null ? ".burst" : ".capacity");
                case "refillAmount" -> path + (d == null || d.getRefillAmount() != null ? ".refill-amount"
                        : ".capacity");
                case "scale", "refillPeriod", "resetAfter" -> InvalidDeclarationException.property(path, field);
                // the one entry rule whose value is the scale: a scale beside absolute values
                default -> d == null && e.value() instanceof Double ? path + ".scale" : path;
            };
        }, check);
    }

    private static <T> T check(String path, Supplier<T> check) {
        return InvalidDeclarationException.check(path, check);
    }

    /**
     * Plans the declarations against the store behind {@code admin}, logs the plan, and carries it out as the mode
     * ({@code zae.limiter.declarations.mode}) says: {@code apply} writes what is added or changed, {@code prune}
     * also removes what earlier declarations wrote and the declarations no longer have, {@code verify} writes
     * nothing and fails (or warns, as {@code on-drift} says) when the store differs. Every write is an audit event
     * of the declarations actor.
     *
     * @throws InvalidDeclarationException in verify mode with {@code on-drift: fail}, when the store differs
     */
    public void applyTo(RateLimiterAdmin admin) {
        RateLimiterAdmin declaring = admin.actingAs(actor);
        boolean apply = mode == ZaeLimiterProperties.Declarations.Mode.APPLY;
        if (apply && declaredSettings().isEmpty()) {
            return;                                   // nothing to write, nothing to ask the store
        }
        if (mode != ZaeLimiterProperties.Declarations.Mode.VERIFY) {
            checkParentsExist(declaring);
        }
        Plan plan = planFor(declaring, !apply);
        DeclarationPlan described = plan.described();
        log.info("zae-limiter declarations ({}): {}", mode.name().toLowerCase(java.util.Locale.ROOT),
                described.summary());
        for (DeclarationPlan.Change change : described.drift()) {
            log.info("  {}", change);
        }
        for (String warning : described.warnings()) {
            log.warn("zae-limiter declarations: {}", warning);
        }
        if (mode == ZaeLimiterProperties.Declarations.Mode.VERIFY) {
            if (!described.drift().isEmpty()) {
                String message = "the store differs from the declarations (" + described.summary() + "): "
                        + described.drift().stream().map(Object::toString).collect(Collectors.joining("; "));
                if (onDrift == ZaeLimiterProperties.Declarations.OnDrift.FAIL) {
                    throw new InvalidDeclarationException("zae.limiter.declarations.mode", message, "Apply the"
                            + " declarations (mode apply or prune), change them to match the store, or set"
                            + " zae.limiter.declarations.on-drift to warn.");
                }
                log.warn("zae-limiter declarations: {}", message);
            }
            return;
        }
        for (Planned planned : plan.planned()) {
            DeclarationPlan.Kind kind = planned.change().kind();
            if (kind == DeclarationPlan.Kind.ADDED || kind == DeclarationPlan.Kind.CHANGED
                    || (kind == DeclarationPlan.Kind.REMOVED && mode == ZaeLimiterProperties.Declarations.Mode.PRUNE)) {
                planned.setting().write(declaring);
            }
        }
    }

    /** Fails before any write when an entity's parent is neither declared nor in the store. */
    private void checkParentsExist(RateLimiterAdmin admin) {
        java.util.Set<String> declared = new java.util.HashSet<>();
        entities.forEach(e -> declared.add(e.entity().id()));
        for (EntityLevels declaredEntity : entities) {
            String parent = declaredEntity.entity().parentId();
            if (parent != null && !declared.contains(parent) && admin.getEntity(parent).isEmpty()) {
                String property = PREFIX + ".entities." + declaredEntity.entity().id() + ".parent";
                throw new InvalidDeclarationException(property, "the parent '" + parent + "' is neither declared"
                        + " under zae.limiter.entities nor in the store", "Declare the parent, such as"
                        + " zae.limiter.entities." + parent + ".name: " + parent + ", create it through the admin"
                        + " API first, or correct '" + property + "'.");
            }
        }
    }

    /**
     * What {@link #applyTo} would do now against the store behind {@code admin}: the drift between the declarations
     * and the store. Writes nothing.
     */
    public DeclarationPlan plan(RateLimiterAdmin admin) {
        return planFor(admin.actingAs(actor), true).described();
    }

    /** The mode the declarations are applied in. */
    public ZaeLimiterProperties.Declarations.Mode mode() {
        return mode;
    }

    /** One setting of one level: its key, the declared value ({@code null}: remove), and how to read and write it. */
    private record Setting(String entityId, String resource, String field, Object declared) {

        Object current(RateLimiterAdmin admin) {
            return switch (field) {
                case LIMITS -> emptyToNull(entityId != null ? admin.getLimits(entityId, resource)
                        : resource != null ? admin.getResourceDefaults(resource) : admin.getSystemDefaults());
                case CASCADE -> (entityId != null ? admin.getEntityCascade(entityId, resource)
                        : admin.getResourceCascade(resource)).orElse(null);
                case DISABLED -> (entityId != null ? admin.getEntityDisabled(entityId, resource)
                        : admin.getResourceDisabled(resource)).orElse(null);
                default -> admin.getEntity(entityId).orElse(null);
            };
        }

        @SuppressWarnings("unchecked")
        void write(RateLimiterAdmin admin) {
            switch (field) {
                case LIMITS -> {
                    List<Limit> limits = (List<Limit>) declared;
                    if (entityId != null) {
                        if (limits == null) {
                            admin.deleteLimits(entityId, resource);
                        } else {
                            admin.setLimits(entityId, resource, limits);
                        }
                    } else if (resource != null) {
                        if (limits == null) {
                            admin.deleteResourceDefaults(resource);
                        } else {
                            admin.setResourceDefaults(resource, limits);
                        }
                    } else if (limits == null) {
                        admin.deleteSystemDefaults();
                    } else {
                        admin.setSystemDefaults(limits);
                    }
                }
                case CASCADE -> {
                    Boolean cascade = (Boolean) declared;
                    if (entityId == null) {
                        if (cascade == null) {
                            admin.clearResourceCascade(resource);
                        } else {
                            admin.setResourceCascade(resource, cascade);
                        }
                    } else if (cascade == null) {
                        admin.clearEntityCascade(entityId, resource);
                    } else {
                        admin.setEntityCascade(entityId, resource, cascade);
                    }
                }
                case DISABLED -> {
                    DisabledMode disabled = (DisabledMode) declared;
                    if (entityId == null) {
                        if (disabled == null) {
                            admin.clearResourceDisabled(resource);
                        } else {
                            admin.setResourceDisabled(resource, disabled);
                        }
                    } else if (disabled == null) {
                        admin.clearEntityDisabled(entityId, resource);
                    } else {
                        admin.setEntityDisabled(entityId, resource, disabled);
                    }
                }
                default -> {
                    Entity entity = (Entity) declared;
                    if (entity == null) {
                        admin.deleteEntity(entityId);
                    } else if (admin.getEntity(entityId).isPresent()) {
                        admin.updateEntity(entity);
                    } else {
                        admin.createEntity(entity);
                    }
                }
            }
        }

        String target() {
            if (entityId != null) {
                return resource == null ? "entity " + entityId : "entity " + entityId + " on " + resource;
            }
            return resource == null ? "system" : "resource " + resource;
        }

        List<String> key() {
            return java.util.Arrays.asList(entityId, resource, field);
        }
    }

    private static final String LIMITS = "limits";
    private static final String CASCADE = "cascade";
    private static final String DISABLED = "disabled";
    private static final String RECORD = "record";

    /** A setting and what the plan does with it. */
    private record Planned(Setting setting, DeclarationPlan.Change change) {
    }

    /** The plan with what each change writes. */
    private record Plan(List<Planned> planned, List<String> warnings) {

        DeclarationPlan described() {
            return new DeclarationPlan(planned.stream().map(Planned::change).toList(), warnings);
        }
    }

    /** The plan; with {@code removals}, also what earlier declarations wrote and these no longer have. */
    private Plan planFor(RateLimiterAdmin admin, boolean removals) {
        List<Setting> declared = declaredSettings();
        Map<List<String>, Setting> byKey = new java.util.LinkedHashMap<>();
        declared.forEach(setting -> byKey.put(setting.key(), setting));
        List<Planned> planned = new ArrayList<>();
        for (Setting setting : declared) {
            Object current = setting.current(admin);
            DeclarationPlan.Kind kind = current == null ? DeclarationPlan.Kind.ADDED
                    : current.equals(setting.declared()) ? DeclarationPlan.Kind.UNCHANGED : DeclarationPlan.Kind.CHANGED;
            planned.add(new Planned(setting, new DeclarationPlan.Change(kind, setting.target(), setting.field(),
                    words(current), words(setting.declared()))));
        }
        List<String> warnings = new ArrayList<>();
        for (Setting removed : removals ? writtenByEarlierDeclarations(admin, byKey.keySet(), warnings)
                : List.<Setting>of()) {
            Object current = removed.current(admin);
            if (current != null) {
                planned.add(new Planned(removed, new DeclarationPlan.Change(DeclarationPlan.Kind.REMOVED,
                        removed.target(), removed.field(), words(current), null)));
            }
        }
        warnings.addAll(cascadesWithoutParentLimits(admin, byKey));
        return new Plan(planned, warnings);
    }

    /** Every setting the declarations make, entities' records first (roots first). */
    private List<Setting> declaredSettings() {
        List<Setting> settings = new ArrayList<>();
        if (system != null) {
            settings.add(new Setting(null, null, LIMITS, system));
        }
        for (LevelDeclaration resource : resources) {
            addLevel(settings, null, resource);
        }
        for (EntityLevels declared : entities) {
            Entity entity = declared.entity();
            settings.add(new Setting(entity.id(), null, RECORD, entity));
            if (declared.disabled() != null) {
                settings.add(new Setting(entity.id(), Names.DEFAULT_RESOURCE, DISABLED, declared.disabled()));
            }
            for (LevelDeclaration level : declared.resources()) {
                addLevel(settings, entity.id(), level);
            }
        }
        return settings;
    }

    private static void addLevel(List<Setting> settings, String entityId, LevelDeclaration level) {
        if (level.limits() != null) {
            settings.add(new Setting(entityId, level.resource(), LIMITS, level.limits()));
        }
        if (level.cascade() != null) {
            settings.add(new Setting(entityId, level.resource(), CASCADE, level.cascade()));
        }
        if (level.disabled() != null) {
            settings.add(new Setting(entityId, level.resource(), DISABLED, level.disabled()));
        }
    }

    /**
     * The settings whose last change in the audit log was made by the declarations actor and that the declarations
     * no longer make: what prune removes. A setting changed through the admin API since is not among them, nor is
     * the record of an entity that has such a setting (removing the record would delete them). Entity records are
     * removed last.
     */
    private List<Setting> writtenByEarlierDeclarations(RateLimiterAdmin admin, java.util.Set<List<String>> declared,
            List<String> warnings) {
        Map<List<String>, AuditEvent> latest = new java.util.LinkedHashMap<>();
        try {
            AuditQuery query = AuditQuery.all().pageSize(AuditQuery.MAX_PAGE_SIZE);
            AuditPage page = admin.audit(query);
            while (true) {
                for (AuditEvent event : page.events()) {
                    String field = fieldOf(event.action());
                    if (field != null) {
                        latest.putIfAbsent(java.util.Arrays.asList(event.entityId(),
                                RECORD.equals(field) ? null : event.resource(), field), event);
                    }
                }
                if (page.nextCursor() == null) {
                    break;
                }
                page = admin.audit(query.after(page.nextCursor()));
            }
        } catch (UnsupportedOperationException e) {
            warnings.add("the store keeps no audit log, so settings written by earlier declarations cannot be told"
                    + " apart and none is removed");
            return List.of();
        }
        java.util.Set<String> configuredByOthers = new java.util.HashSet<>();
        latest.forEach((key, event) -> {
            if (key.get(0) != null && !RECORD.equals(key.get(2)) && !event.actor().equals(actor)
                    && event.after() != null) {
                configuredByOthers.add(key.get(0));
            }
        });
        List<Setting> removed = new ArrayList<>();
        List<Setting> records = new ArrayList<>();
        latest.forEach((key, event) -> {
            boolean stillSet = RECORD.equals(key.get(2)) ? !event.action().equals("delete-entity")
                    : event.after() != null;
            if (event.actor().equals(actor) && stillSet && !declared.contains(key)) {
                Setting setting = new Setting(key.get(0), key.get(1), key.get(2), null);
                if (RECORD.equals(key.get(2))) {
                    if (configuredByOthers.contains(key.get(0))) {
                        warnings.add("entity " + key.get(0) + " is no longer declared but has settings written"
                                + " through the admin API since; it is kept with them");
                    } else if (admin.children(key.get(0)).isEmpty()) {
                        records.add(setting);
                    } else {
                        warnings.add("entity " + key.get(0) + " is no longer declared but has children; it is kept");
                    }
                } else {
                    removed.add(setting);
                }
            }
        });
        removed.addAll(records);
        return removed;
    }

    private static String fieldOf(String action) {
        return switch (action) {
            case "set-limits", "delete-limits" -> LIMITS;
            case "set-cascade" -> CASCADE;
            case "set-disabled" -> DISABLED;
            case "create-entity", "update-entity", "set-parent", "delete-entity" -> RECORD;
            default -> null;
        };
    }

    /**
     * Declared entities that cascade to their parent on a resource where the parent has no limits at any level (its
     * own, its {@code _default_}, the resource's, the system's), as they will stand once the declarations are
     * applied: such a parent is not debited.
     */
    private List<String> cascadesWithoutParentLimits(RateLimiterAdmin admin, Map<List<String>, Setting> declared) {
        java.util.Set<String> resourceNames = new java.util.TreeSet<>();
        resources.forEach(r -> resourceNames.add(r.resource()));
        entities.forEach(e -> e.resources().forEach(l -> resourceNames.add(l.resource())));
        resourceNames.remove(Names.DEFAULT_RESOURCE);
        List<String> warnings = new ArrayList<>();
        for (EntityLevels declaredEntity : entities) {
            Entity entity = declaredEntity.entity();
            if (entity.parentId() == null) {
                continue;
            }
            for (String resource : resourceNames) {
                ConfigSnapshot cascade = new ConfigSnapshot(entity,
                        cascadeLevel(value(admin, declared, entity.id(), resource, CASCADE)),
                        cascadeLevel(value(admin, declared, entity.id(), Names.DEFAULT_RESOURCE, CASCADE)),
                        cascadeLevel(value(admin, declared, null, resource, CASCADE)), LevelConfig.EMPTY);
                if (cascade.cascadeParent() != null && value(admin, declared, entity.parentId(), resource, LIMITS) == null
                        && value(admin, declared, entity.parentId(), Names.DEFAULT_RESOURCE, LIMITS) == null
                        && value(admin, declared, null, resource, LIMITS) == null
                        && value(admin, declared, null, null, LIMITS) == null) {
                    warnings.add("entity " + entity.id() + " cascades to " + entity.parentId() + " on " + resource
                            + ", but " + entity.parentId() + " has no limits for " + resource + " at any level, so"
                            + " its calls are not debited to " + entity.parentId());
                }
            }
        }
        return warnings;
    }

    @SuppressWarnings("unchecked")
    private static <T> T value(RateLimiterAdmin admin, Map<List<String>, Setting> declared, String entityId,
            String resource, String field) {
        Setting setting = declared.get(java.util.Arrays.asList(entityId, resource, field));
        return (T) (setting != null ? setting.declared() : new Setting(entityId, resource, field, null).current(admin));
    }

    private static LevelConfig cascadeLevel(Boolean cascade) {
        return new LevelConfig(null, null, cascade);
    }

    private static Object emptyToNull(List<Limit> limits) {
        return limits.isEmpty() ? null : limits;
    }

    private static String words(Object value) {
        return value == null ? null : value.toString();
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
