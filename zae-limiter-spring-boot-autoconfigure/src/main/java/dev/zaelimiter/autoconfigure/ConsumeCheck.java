package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.Names;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Once every singleton exists, reports each filter rule and {@code @RateLimited} method whose {@code consume} names a
 * limit that no declaration under {@code zae.limiter} defines for its resource (system limits, the resource's limits,
 * or any entity's limits on the resource or on every resource). Such a limit may still be set in the store at run
 * time, so it is a warning, or with {@code zae.limiter.strict-consume=true} a startup failure. Nothing is reported
 * when nothing at all is declared and the check is not strict: the application then sets its limits in code.
 */
final class ConsumeCheck implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(ConsumeCheck.class);

    private static final String AOP_SOURCE = "dev.zaelimiter.autoconfigure.aop.RateLimitedOperationSource";
    private static final String RULE = "dev.zaelimiter.autoconfigure.web.ZaeLimiterWebProperties$Rule";

    private final ZaeLimiterProperties properties;
    private final ListableBeanFactory beanFactory;
    private final Environment environment;

    ConsumeCheck(ZaeLimiterProperties properties, ListableBeanFactory beanFactory, Environment environment) {
        this.properties = properties;
        this.beanFactory = beanFactory;
        this.environment = environment;
    }

    /** One consumed limit that no declaration defines. */
    record Undeclared(String property, String resource, String limit, String where, Set<String> declared) {

        String message() {
            String closest = UnknownPropertiesCheck.closest(limit, declared);
            return where + " consumes limit '" + limit + "' of resource '" + resource + "', but no declaration"
                    + " under zae.limiter defines it for that resource (declared: " + (declared.isEmpty() ? "none"
                    : String.join(", ", declared)) + ")" + (closest != null ? "; did you mean '" + closest + "'?"
                    : "");
        }

        String action() {
            return "Declare it, such as zae.limiter.resources." + bracket(resource) + ".limits." + limit
                    + ".capacity: 100 (or max-in-flight for a concurrency limit), or correct the limit name in "
                    + where + "; or, when the limit is set in the store at run time, write"
                    + " zae.limiter.strict-consume=false.";
        }
    }

    @Override
    public void afterSingletonsInstantiated() {
        boolean declaresAnything = !properties.getSystem().getLimits().isEmpty()
                || !properties.getResources().isEmpty() || !properties.getEntities().isEmpty();
        if (!declaresAnything && !properties.isStrictConsume()) {
            return;
        }
        List<Undeclared> undeclared = find();
        if (undeclared.isEmpty()) {
            return;
        }
        if (properties.isStrictConsume()) {
            Undeclared first = undeclared.get(0);
            throw new InvalidDeclarationException(first.property(), first.message(), first.action());
        }
        for (Undeclared u : undeclared) {
            log.warn("zae-limiter: {}. Unless the store holds it at run time, such calls fail. {}", u.message(),
                    u.action());
        }
    }

    List<Undeclared> find() {
        List<Undeclared> undeclared = new ArrayList<>();
        ClassLoader classLoader = getClass().getClassLoader();
        if (ClassUtils.isPresent(RULE, classLoader) && Binder.get(environment)
                .bind("zae.limiter.web.enabled", Boolean.class).orElse(true)) {
            Class<?> ruleType = ClassUtils.resolveClassName(RULE, classLoader);
            List<?> rules = Binder.get(environment).bind("zae.limiter.web.rules", Bindable.listOf(ruleType))
                    .orElse(List.of());
            for (int i = 0; i < rules.size(); i++) {
                var rule = (dev.zaelimiter.autoconfigure.web.ZaeLimiterWebProperties.Rule) rules.get(i);
                if (rule == null || rule.getResource() == null || rule.getConsume() == null) {
                    continue; // the filter reports an incomplete rule
                }
                String where = "zae.limiter.web.rules[" + i + "]";
                for (String limit : rule.getConsume().keySet()) {
                    check(rule.getResource(), limit, where + ".consume." + limit, "the rule " + where, undeclared);
                }
            }
        }
        if (ClassUtils.isPresent(AOP_SOURCE, classLoader)) {
            var source = beanFactory.getBeanProvider(dev.zaelimiter.autoconfigure.aop.RateLimitedOperationSource.class)
                    .getIfAvailable();
            if (source != null) {
                for (String name : beanFactory.getBeanDefinitionNames()) {
                    Class<?> type = beanFactory.getType(name, false);
                    if (type == null) {
                        continue;
                    }
                    Class<?> userType = ClassUtils.getUserClass(type);
                    if (!AnnotationUtils.isCandidateClass(userType, dev.zaelimiter.spring.RateLimited.class)) {
                        continue;
                    }
                    for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userType,
                            ReflectionUtils.USER_DECLARED_METHODS)) {
                        source.isRateLimited(method, userType);
                    }
                }
                for (var consumption : source.consumptions()) {
                    for (String limit : consumption.limits()) {
                        check(consumption.resource(), limit, "zae.limiter.resources." + bracket(consumption.resource())
                                + ".limits." + limit, consumption.where(), undeclared);
                    }
                }
            }
        }
        return undeclared;
    }

    private void check(String resource, String limit, String property, String where, List<Undeclared> undeclared) {
        Set<String> declared = declared(resource);
        if (!declared.contains(limit) && undeclared.stream().noneMatch(u -> u.property().equals(property)
                && u.where().equals(where))) {
            undeclared.add(new Undeclared(property, resource, limit, where, declared));
        }
    }

    /** The limit names declared for a resource at any level. */
    Set<String> declared(String resource) {
        Set<String> names = new TreeSet<>(properties.getSystem().getLimits().keySet());
        ZaeLimiterProperties.Resource level = properties.getResources().get(resource);
        if (level != null) {
            names.addAll(level.getLimits().keySet());
        }
        properties.getEntities().values().forEach(entity -> entity.getResources().forEach((name, r) -> {
            if (name.equals(resource) || name.equals(Names.DEFAULT_RESOURCE)) {
                names.addAll(r.getLimits().keySet());
            }
        }));
        return names;
    }

    private static String bracket(String name) {
        return name.matches("[a-z0-9-]+") ? name : "[" + name + "]";
    }
}
