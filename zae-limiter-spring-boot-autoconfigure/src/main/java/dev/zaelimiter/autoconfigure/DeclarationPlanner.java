package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditPage;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.Names;
import dev.zaelimiter.RateLimiterAdmin;
import dev.zaelimiter.autoconfigure.LimitDeclarations.EntityLevels;
import dev.zaelimiter.autoconfigure.LimitDeclarations.LevelDeclaration;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Plans checked declarations against a store: each setting they make, how it stands in the store, what earlier
 * declarations wrote that these no longer make, and the warnings (a cascade to a parent without limits).
 */
final class DeclarationPlanner {

    private final List<Limit> system;
    private final List<LevelDeclaration> resources;
    private final List<EntityLevels> entities;
    private final String actor;

    DeclarationPlanner(List<Limit> system, List<LevelDeclaration> resources, List<EntityLevels> entities,
            String actor) {
        this.system = system;
        this.resources = resources;
        this.entities = entities;
        this.actor = actor;
    }

    /** One setting of one level: its key, the declared value ({@code null}: remove), and how to read and write it. */
    record Setting(String entityId, String resource, String field, Object declared) {

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
    record Planned(Setting setting, DeclarationPlan.Change change) {
    }

    /** The plan with what each change writes. */
    record Plan(List<Planned> planned, List<String> warnings) {

        DeclarationPlan described() {
            return new DeclarationPlan(planned.stream().map(Planned::change).toList(), warnings);
        }
    }

    /** The plan; with {@code removals}, also what earlier declarations wrote and these no longer have. */
    Plan planFor(RateLimiterAdmin admin, boolean removals) {
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
    List<Setting> declaredSettings() {
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
}
