package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Names;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiterAdmin;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.EntityDeclaration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.LimitDeclaration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.Resource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
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
    private final DeclarationPlanner planner;

    private LimitDeclarations(List<Limit> system, List<LevelDeclaration> resources, List<EntityLevels> entities,
            ZaeLimiterProperties properties, String applicationName) {
        this.system = system;
        this.resources = resources;
        this.entities = entities;
        this.mode = properties.getDeclarations().getMode();
        this.onDrift = properties.getDeclarations().getOnDrift();
        this.actor = properties.getAudit().declarationsActorOf(applicationName);
        this.planner = new DeclarationPlanner(system, resources, entities, actor);
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
        List<Limit> system = LimitConversion.limits(PREFIX + ".system.limits", properties.getSystem().getLimits());
        List<LevelDeclaration> resources = new ArrayList<>();
        properties.getResources().forEach((name, resource) -> {
            String path = PREFIX + ".resources." + name;
            LimitConversion.check(path, () -> Names.resource("resource", name));
            resources.add(level(path, name, resource));
        });
        List<EntityLevels> entities = new ArrayList<>();
        properties.getEntities().forEach((id, declaration) -> {
            String path = PREFIX + ".entities." + id;
            LimitConversion.check(path, () -> Names.entityId("entity id", id));
            Entity entity = LimitConversion.check(path, () -> new Entity(id, declaration.getName(), declaration.getParent(),
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
                LimitConversion.check(levelPath, () -> Names.resourceOrDefault("resource", resource));
                levels.add(level(levelPath, resource, level));
            });
            entities.add(new EntityLevels(entity, declaration.getDisabled(), levels));
        });
        entities.sort(Comparator.comparing(e -> e.entity().parentId() != null));
        return new LimitDeclarations(system, resources, entities, properties, applicationName);
    }

    private static LevelDeclaration level(String path, String resource, Resource level) {
        List<Limit> limits = LimitConversion.limits(path + ".limits", level.getLimits());
        return new LevelDeclaration(resource, limits, level.getCascade(), level.getDisabled());
    }

    /**
     * Converts and checks the limits of one level written as declarations (for example in a request to the
     * actuator endpoint); {@code path} names them in errors.
     *
     * @throws InvalidDeclarationException for the first limit that breaks a rule, naming its property
     */
    public static List<Limit> limitsOf(String path, Map<String, LimitDeclaration> declarations) {
        List<Limit> limits = LimitConversion.limits(path, declarations);
        if (limits == null) {
            throw new InvalidDeclarationException(path, "declare at least one limit");
        }
        return limits;
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
        if (apply && planner.declaredSettings().isEmpty()) {
            return;                                   // nothing to write, nothing to ask the store
        }
        if (mode != ZaeLimiterProperties.Declarations.Mode.VERIFY) {
            checkParentsExist(declaring);
        }
        DeclarationPlanner.Plan plan = planner.planFor(declaring, !apply);
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
        for (DeclarationPlanner.Planned planned : plan.planned()) {
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
        return planner.planFor(admin.actingAs(actor), true).described();
    }

    /** The mode the declarations are applied in. */
    public ZaeLimiterProperties.Declarations.Mode mode() {
        return mode;
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
