package dev.zaelimiter;

import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.LimiterStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static dev.zaelimiter.internal.Identifiers.DEFAULT_RESOURCE;

/**
 * Manages what the limiter enforces: entities and their hierarchy, limits at each configuration level, disabled
 * modes and cascade policies. Every method validates its arguments before it writes anything. Changes take effect
 * on the next call.
 */
public final class RateLimiterAdmin {

    private final LimiterStore store;
    private final Object hierarchyLock = new Object();

    RateLimiterAdmin(LimiterStore store) {
        this.store = store;
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
        Objects.requireNonNull(entity, "entity");
        synchronized (hierarchyLock) {
            if (entity.parentId() != null) {
                requireRootParent(entity.parentId());
            }
            store.createEntity(entity);
        }
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
            store.deleteEntity(entityId);
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
            return update(entity.withParent(parentId));
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
        Objects.requireNonNull(entity, "entity");
        synchronized (hierarchyLock) {
            if (store.getEntity(entity.id()).isEmpty()) {
                throw new EntityNotFoundException(entity.id());
            }
            return update(entity);
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
        store.deleteBucket(new BucketKey(Identifiers.entityId("entityId", entityId),
                Identifiers.resource("resource", resource)));
    }

    // ---- limits

    /**
     * Sets the limits of {@code entityId} on {@code resource} ({@value Identifiers#DEFAULT_RESOURCE} for every
     * resource), replacing all limits that level had. The entity needs no record.
     */
    public void setLimits(String entityId, String resource, List<Limit> limits) {
        store.putLimits(entityScope(entityId, resource), Limit.validateLevel("limits", limits));
    }

    /** The limits set on exactly this level; empty when it sets none. */
    public List<Limit> getLimits(String entityId, String resource) {
        return orEmpty(store.getLevel(entityScope(entityId, resource)).limits());
    }

    public void deleteLimits(String entityId, String resource) {
        store.putLimits(entityScope(entityId, resource), null);
    }

    /** Sets the limits every entity without its own gets on {@code resource}. */
    public void setResourceDefaults(String resource, List<Limit> limits) {
        store.putLimits(resourceScope(resource), Limit.validateLevel("limits", limits));
    }

    public List<Limit> getResourceDefaults(String resource) {
        return orEmpty(store.getLevel(resourceScope(resource)).limits());
    }

    public void deleteResourceDefaults(String resource) {
        store.putLimits(resourceScope(resource), null);
    }

    /** Sets the limits that apply where no entity or resource level defines any. */
    public void setSystemDefaults(List<Limit> limits) {
        store.putLimits(ConfigScope.system(), Limit.validateLevel("limits", limits));
    }

    public List<Limit> getSystemDefaults() {
        return orEmpty(store.getLevel(ConfigScope.system()).limits());
    }

    public void deleteSystemDefaults() {
        store.putLimits(ConfigScope.system(), null);
    }

    // ---- disabled modes

    public void setResourceDisabled(String resource, DisabledMode mode) {
        store.putDisabled(resourceScope(resource), Objects.requireNonNull(mode, "mode"));
    }

    public void clearResourceDisabled(String resource) {
        store.putDisabled(resourceScope(resource), null);
    }

    /** The mode set on the resource level itself; empty when it inherits. */
    public Optional<DisabledMode> getResourceDisabled(String resource) {
        return Optional.ofNullable(store.getLevel(resourceScope(resource)).disabled());
    }

    /** Sets the mode of {@code entityId} on {@code resource} ({@value Identifiers#DEFAULT_RESOURCE}: every one). */
    public void setEntityDisabled(String entityId, String resource, DisabledMode mode) {
        store.putDisabled(entityScope(entityId, resource), Objects.requireNonNull(mode, "mode"));
    }

    public void clearEntityDisabled(String entityId, String resource) {
        store.putDisabled(entityScope(entityId, resource), null);
    }

    public Optional<DisabledMode> getEntityDisabled(String entityId, String resource) {
        return Optional.ofNullable(store.getLevel(entityScope(entityId, resource)).disabled());
    }

    // ---- cascade policies

    /** Whether children cascade to their parents on {@code resource}, unless an entity-level policy says otherwise. */
    public void setResourceCascade(String resource, boolean cascade) {
        store.putCascade(resourceScope(resource), cascade);
    }

    public void clearResourceCascade(String resource) {
        store.putCascade(resourceScope(resource), null);
    }

    public Optional<Boolean> getResourceCascade(String resource) {
        return Optional.ofNullable(store.getLevel(resourceScope(resource)).cascade());
    }

    /** Whether {@code entityId} cascades on {@code resource} ({@value Identifiers#DEFAULT_RESOURCE}: every one). */
    public void setEntityCascade(String entityId, String resource, boolean cascade) {
        store.putCascade(entityScope(entityId, resource), cascade);
    }

    public void clearEntityCascade(String entityId, String resource) {
        store.putCascade(entityScope(entityId, resource), null);
    }

    public Optional<Boolean> getEntityCascade(String entityId, String resource) {
        return Optional.ofNullable(store.getLevel(entityScope(entityId, resource)).cascade());
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
