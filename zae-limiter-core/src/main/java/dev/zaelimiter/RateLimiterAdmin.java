package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.LimiterStore;

import dev.zaelimiter.store.AuditStore;
import dev.zaelimiter.store.LevelConfig;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static dev.zaelimiter.internal.Identifiers.DEFAULT_RESOURCE;

/**
 * Manages what the limiter enforces: entities and their hierarchy, limits at each configuration level, disabled
 * modes and cascade policies. Every method validates its arguments before it writes anything. Changes take effect
 * on the next call. Every change is recorded in the store's audit log (see {@link #audit(AuditQuery)}); the store's
 * usage history is read here too.
 */
public final class RateLimiterAdmin {

    /**
     * The most periods one usage read spans: 400 days of hours (a top-N query on DynamoDB reads one partition per
     * period). Read days for longer ranges.
     */
    public static final int MAX_USAGE_PERIODS = 24 * 400;

    private final LimiterStore store;
    private final UsageRecorder usage;
    private final AuditLog audit;
    private final Clock clock;
    private final Object hierarchyLock;
    private final UsageQueries usageQueries;

    RateLimiterAdmin(LimiterStore store, UsageRecorder usage, AuditLog audit, Clock clock) {
        this(store, usage, audit, clock, new Object());
    }

    private RateLimiterAdmin(LimiterStore store, UsageRecorder usage, AuditLog audit, Clock clock,
            Object hierarchyLock) {
        this.store = store;
        this.usage = usage;
        this.audit = audit;
        this.clock = clock;
        this.hierarchyLock = hierarchyLock;
        this.usageQueries = new UsageQueries(store, usage);
    }

    /**
     * This admin, with the audit log naming {@code actor} for every change made through the returned one (for
     * example {@code declarations} for changes applied from configuration files).
     */
    public RateLimiterAdmin actingAs(String actor) {
        if (actor == null || actor.isBlank()) {
            throw new ValidationException("actor", actor, "name who makes the changes");
        }
        return new RateLimiterAdmin(store, usage, audit.as(actor), clock, hierarchyLock);
    }

    // ---- entities

    /** Creates a root entity with no name. */
    public Entity createEntity(String entityId) {
        return createEntity(Entity.of(entityId));
    }

    /**
     * Creates {@code entity}.
     *
     * @throws EntityExistsException   when the id is taken
     * @throws EntityNotFoundException when its parent does not exist
     * @throws ValidationException     when its parent is itself a child (hierarchies have two levels)
     */
    public Entity createEntity(Entity entity) {
        Arguments.required("entity", entity);
        synchronized (hierarchyLock) {
            if (entity.parentId() != null) {
                requireRootParent(entity.parentId());
            }
            store.createEntity(entity);
        }
        audit.record("create-entity", entity.id(), null, null, describe(entity));
        return entity;
    }

    public Optional<Entity> getEntity(String entityId) {
        return store.getEntity(Identifiers.entityId("entityId", entityId));
    }

    /**
     * Deletes an entity record with its configuration and buckets.
     *
     * @throws EntityNotFoundException when there is no such entity
     * @throws ValidationException     when other entities still name it as their parent
     */
    public void deleteEntity(String entityId) {
        Identifiers.entityId("entityId", entityId);
        synchronized (hierarchyLock) {
            if (store.getEntity(entityId).isEmpty()) {
                throw new EntityNotFoundException(entityId);
            }
            List<Entity> children = store.children(entityId);
            if (!children.isEmpty()) {
                throw new ValidationException("entityId", entityId, "the entity still has children "
                        + children.stream().map(Entity::id).toList() + "; move them with setParent first");
            }
            String before = describe(store.getEntity(entityId).orElse(null)) + levelsOf(entityId);
            store.deleteEntity(entityId);
            audit.record("delete-entity", entityId, null, before, null);
        }
    }

    /**
     * Moves {@code entityId} under {@code parentId}, or to the root for {@code null}. Future cascading calls debit
     * the new parent; what was debited before stays where it is. Hierarchies have two levels, so the new parent
     * must be a root and the entity must have no children of its own; this also rules out cycles.
     *
     * @return the updated entity
     * @throws EntityNotFoundException when the entity or the new parent does not exist
     * @throws ValidationException     when the move would make the entity its own parent, or a hierarchy deeper
     *                                 than two levels
     */
    public Entity setParent(String entityId, String parentId) {
        Identifiers.entityId("entityId", entityId);
        if (parentId != null) {
            Identifiers.entityId("parentId", parentId);
        }
        synchronized (hierarchyLock) {
            Entity entity = store.getEntity(entityId).orElseThrow(() -> new EntityNotFoundException(entityId));
            Entity updated = update(entity.withParent(parentId));
            audit.record("set-parent", entityId, null, entity.parentId(), parentId);
            return updated;
        }
    }

    /**
     * Replaces the record of an existing entity: its name, parent and cascade flag. The same rules as
     * {@link #setParent} apply to the parent.
     *
     * @throws EntityNotFoundException when the entity or its new parent does not exist
     * @throws ValidationException     when the parent would make a hierarchy deeper than two levels
     */
    public Entity updateEntity(Entity entity) {
        Arguments.required("entity", entity);
        synchronized (hierarchyLock) {
            Entity before = store.getEntity(entity.id()).orElseThrow(() -> new EntityNotFoundException(entity.id()));
            Entity updated = update(entity);
            audit.record("update-entity", entity.id(), null, describe(before), describe(entity));
            return updated;
        }
    }

    private Entity update(Entity entity) {
        String parentId = entity.parentId();
        if (parentId != null) {
            requireRootParent(parentId);
            List<Entity> children = store.children(entity.id());
            if (!children.isEmpty()) {
                throw new ValidationException("parentId", parentId, "'" + entity.id() + "' has children "
                        + children.stream().map(Entity::id).toList()
                        + " and hierarchies have two levels; move them first");
            }
        }
        store.updateEntity(entity);
        return entity;
    }

    /** The entity {@code parentId}, which must exist and be a root. */
    private Entity requireRootParent(String parentId) {
        Entity parent = store.getEntity(parentId).orElseThrow(() -> new EntityNotFoundException(parentId));
        if (parent.parentId() != null) {
            throw new ValidationException("parentId", parentId, "'" + parentId + "' is itself a child of '"
                    + parent.parentId() + "' and hierarchies have two levels; choose a root entity as parent");
        }
        return parent;
    }

    /** The entities whose parent is {@code parentId}, ordered by id. */
    public List<Entity> children(String parentId) {
        return store.children(Identifiers.entityId("parentId", parentId));
    }

    /** Puts the bucket of {@code entityId} on {@code resource} back to full, as if it had never been used. */
    public void resetBucket(String entityId, String resource) {
        BucketKey key = new BucketKey(Identifiers.entityId("entityId", entityId),
                Identifiers.resource("resource", resource));
        store.deleteBucket(key);
        audit.record("reset-bucket", key.entityId(), key.resource(), null, "full");
    }

    // ---- limits

    /**
     * Sets the limits of {@code entityId} on {@code resource} ({@value Identifiers#DEFAULT_RESOURCE} for every
     * resource), replacing all limits that level had. The entity needs no record.
     */
    public void setLimits(String entityId, String resource, List<Limit> limits) {
        putLimits(entityScope(entityId, resource), Limit.validateLevel("limits", limits));
    }

    /** The limits set on exactly this level; empty when it sets none. */
    public List<Limit> getLimits(String entityId, String resource) {
        return orEmpty(store.getLevel(entityScope(entityId, resource)).limits());
    }

    public void deleteLimits(String entityId, String resource) {
        putLimits(entityScope(entityId, resource), null);
    }

    /** Sets the limits every entity without its own gets on {@code resource}. */
    public void setResourceDefaults(String resource, List<Limit> limits) {
        putLimits(resourceScope(resource), Limit.validateLevel("limits", limits));
    }

    public List<Limit> getResourceDefaults(String resource) {
        return orEmpty(store.getLevel(resourceScope(resource)).limits());
    }

    public void deleteResourceDefaults(String resource) {
        putLimits(resourceScope(resource), null);
    }

    /** Sets the limits that apply where no entity or resource level defines any. */
    public void setSystemDefaults(List<Limit> limits) {
        putLimits(ConfigScope.system(), Limit.validateLevel("limits", limits));
    }

    public List<Limit> getSystemDefaults() {
        return orEmpty(store.getLevel(ConfigScope.system()).limits());
    }

    public void deleteSystemDefaults() {
        putLimits(ConfigScope.system(), null);
    }

    // ---- disabled modes

    public void setResourceDisabled(String resource, DisabledMode mode) {
        putDisabled(resourceScope(resource), Arguments.required("mode", mode));
    }

    public void clearResourceDisabled(String resource) {
        putDisabled(resourceScope(resource), null);
    }

    /** The mode set on the resource level itself; empty when it inherits. */
    public Optional<DisabledMode> getResourceDisabled(String resource) {
        return Optional.ofNullable(store.getLevel(resourceScope(resource)).disabled());
    }

    /** Sets the mode of {@code entityId} on {@code resource} ({@value Identifiers#DEFAULT_RESOURCE}: every one). */
    public void setEntityDisabled(String entityId, String resource, DisabledMode mode) {
        putDisabled(entityScope(entityId, resource), Arguments.required("mode", mode));
    }

    public void clearEntityDisabled(String entityId, String resource) {
        putDisabled(entityScope(entityId, resource), null);
    }

    public Optional<DisabledMode> getEntityDisabled(String entityId, String resource) {
        return Optional.ofNullable(store.getLevel(entityScope(entityId, resource)).disabled());
    }

    // ---- cascade policies

    /** Whether children cascade to their parents on {@code resource}, unless an entity-level policy says otherwise. */
    public void setResourceCascade(String resource, boolean cascade) {
        putCascade(resourceScope(resource), cascade);
    }

    public void clearResourceCascade(String resource) {
        putCascade(resourceScope(resource), null);
    }

    public Optional<Boolean> getResourceCascade(String resource) {
        return Optional.ofNullable(store.getLevel(resourceScope(resource)).cascade());
    }

    /** Whether {@code entityId} cascades on {@code resource} ({@value Identifiers#DEFAULT_RESOURCE}: every one). */
    public void setEntityCascade(String entityId, String resource, boolean cascade) {
        putCascade(entityScope(entityId, resource), cascade);
    }

    public void clearEntityCascade(String entityId, String resource) {
        putCascade(entityScope(entityId, resource), null);
    }

    public Optional<Boolean> getEntityCascade(String entityId, String resource) {
        return Optional.ofNullable(store.getLevel(entityScope(entityId, resource)).cascade());
    }

    private void putLimits(ConfigScope scope, List<Limit> limits) {
        String before = before(scope, level -> describe(level.limits()));
        store.putLimits(scope, limits);
        audit.record(limits == null ? "delete-limits" : "set-limits", scope, before, describe(limits));
    }

    private void putDisabled(ConfigScope scope, DisabledMode mode) {
        String before = before(scope, level -> level.disabled() == null ? null : level.disabled().name());
        store.putDisabled(scope, mode);
        audit.record("set-disabled", scope, before, mode == null ? null : mode.name());
    }

    private void putCascade(ConfigScope scope, Boolean cascade) {
        String before = before(scope, level -> level.cascade() == null ? null : level.cascade().toString());
        store.putCascade(scope, cascade);
        audit.record("set-cascade", scope, before, cascade == null ? null : cascade.toString());
    }

    /** What a level sets before a change, for the audit log; a level the store cannot read is being repaired. */
    String before(ConfigScope scope, java.util.function.Function<LevelConfig, String> field) {
        if (audit.store() == null) {
            return null;
        }
        try {
            return field.apply(store.getLevel(scope));
        } catch (CorruptStateException e) {
            return "(unreadable)";
        }
    }

    /**
     * What each configuration level of {@code entityId} sets ({@code _default_} and every resource), for the audit
     * of its deletion: {@code ", <resource> <what it sets>"} per level, empty when it has none or nothing is audited.
     */
    private String levelsOf(String entityId) {
        if (audit.store() == null) {
            return "";
        }
        StringBuilder levels = new StringBuilder();
        for (ConfigScope scope : store.entityScopes(entityId)) {
            String set = before(scope, RateLimiterAdmin::describe);
            if (set != null) {
                levels.append(", ").append(scope.resource()).append(' ').append(set);
            }
        }
        return levels.toString();
    }

    private static String describe(List<Limit> limits) {
        return limits == null ? null : limits.toString();
    }

    /** What a level sets, in words; {@code null} when it sets nothing. */
    private static String describe(LevelConfig level) {
        List<String> set = new ArrayList<>();
        if (level.limits() != null) {
            set.add("limits " + level.limits());
        }
        if (level.disabled() != null) {
            set.add("disabled " + level.disabled());
        }
        if (level.cascade() != null) {
            set.add("cascade " + level.cascade());
        }
        if (level.pausedUntil() != null) {
            set.add("paused until " + java.time.Instant.ofEpochMilli(level.pausedUntil()));
        }
        return set.isEmpty() ? null : String.join(", ", set);
    }

    private static String describe(Entity entity) {
        return entity == null ? null : entity.toString();
    }

    // ---- usage history

    /**
     * The usage of {@code entityId} on every resource, per hour or day, for periods starting in [{@code from},
     * {@code to}) (at most {@link #MAX_USAGE_PERIODS}: from 14:30, the first hour is 15:00), oldest first, one row per
     * resource, limit and period. Includes what this process counted and had not written yet (it is written
     * first); other processes' counts appear once they flushed.
     *
     * @throws UnsupportedOperationException when the store keeps no usage history
     */
    public List<Usage> usage(String entityId, UsageGranularity granularity, Instant from, Instant to) {
        return usage(entityId, null, null, granularity, from, to);
    }

    /**
     * The usage of {@code entityId} on {@code resource} ({@code null}: every resource), of {@code limitName}
     * ({@code null}: every limit), per period, as {@link #usage(String, UsageGranularity, Instant, Instant)}.
     */
    public List<Usage> usage(String entityId, String resource, String limitName, UsageGranularity granularity,
            Instant from, Instant to) {
        return usageQueries.of(entityId, resource, limitName, granularity, from, to);
    }

    /**
     * The {@code n} entities that consumed the most of {@code limitName} on {@code resource} over the periods of
     * {@code granularity} starting in [{@code from}, {@code to}), most first (ties by entity id), each with its
     * totals over the window (its {@link Usage#from()} and {@link Usage#to()} are {@code from} and {@code to}).
     *
     * @throws UnsupportedOperationException when the store keeps no usage history
     */
    public List<Usage> topUsage(String resource, String limitName, UsageGranularity granularity, Instant from,
            Instant to, int n) {
        return usageQueries.top(resource, limitName, granularity, from, to, n);
    }

    // ---- audit log

    /**
     * The audit events {@code query} asks for, newest first.
     *
     * @throws UnsupportedOperationException when the store keeps no audit log
     */
    public AuditPage audit(AuditQuery query) {
        Arguments.required("query", query);
        AuditStore log = store.audit();
        if (log == null) {
            throw new UnsupportedOperationException(store.getClass().getName() + " keeps no audit log");
        }
        return log.read(query);
    }

    private static ConfigScope entityScope(String entityId, String resource) {
        return ConfigScope.entity(Identifiers.entityId("entityId", entityId),
                Identifiers.resourceOrDefault("resource", resource));
    }

    private static ConfigScope resourceScope(String resource) {
        return ConfigScope.resource(Identifiers.resource("resource", resource));
    }

    private static List<Limit> orEmpty(List<Limit> limits) {
        return limits == null ? List.of() : new ArrayList<>(limits);
    }
}
