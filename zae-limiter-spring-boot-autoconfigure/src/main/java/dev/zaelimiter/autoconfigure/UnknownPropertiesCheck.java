package dev.zaelimiter.autoconfigure;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.OriginLookup;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.util.ClassUtils;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Fails startup when a property under {@code zae.limiter} is not a zae-limiter setting, such as
 * {@code refil-amount} or {@code capacty} inside a limit declaration. Each properties class under
 * {@code zae.limiter} (the core, {@code web}, {@code aop}, {@code metrics}, and any other registered with a prefix
 * under {@code zae.limiter}) is bound once with Spring's {@link NoUnboundElementsBindHandler}; a name that no class
 * binds is reported with the valid key closest to it. Runs before any bean is created, so that a typo is reported
 * before the error it would cause (a limit without a capacity, say).
 */
final class UnknownPropertiesCheck implements BeanFactoryPostProcessor, EnvironmentAware, Ordered {

    static final String PREFIX = "zae.limiter";

    /** The properties classes of this module, by prefix; they may be inactive but their keys are still valid. */
    private static final Map<String, String> KNOWN = Map.of(
            PREFIX, "dev.zaelimiter.autoconfigure.ZaeLimiterProperties",
            PREFIX + ".web", "dev.zaelimiter.autoconfigure.web.ZaeLimiterWebProperties",
            PREFIX + ".aop", "dev.zaelimiter.autoconfigure.aop.ZaeLimiterAopProperties",
            PREFIX + ".metrics", "dev.zaelimiter.autoconfigure.metrics.ZaeLimiterMetricsProperties",
            PREFIX + ".client", "dev.zaelimiter.autoconfigure.client.ZaeLimiterClientProperties");

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        Map<String, String> roots = new TreeMap<>(KNOWN);
        // @EnableConfigurationProperties registers "<prefix>-<class name>" beans
        for (String name : beanFactory.getBeanDefinitionNames()) {
            int dash = name.lastIndexOf('-'); // class names have no dash; prefixes may
            if (name.startsWith(PREFIX) && dash > 0 && (dash == PREFIX.length() || name.charAt(PREFIX.length()) == '.')) {
                BeanDefinition definition = beanFactory.getBeanDefinition(name);
                if (definition.getBeanClassName() != null) {
                    roots.putIfAbsent(name.substring(0, dash), definition.getBeanClassName());
                }
            }
        }
        if (environment instanceof ConfigurableEnvironment configurable) {
            checkMapKeys(configurable, types(roots, beanFactory.getBeanClassLoader()));
            ListEntryOverrides.apply(configurable);
        }
        check(environment, roots, beanFactory.getBeanClassLoader());
    }

    private static Map<String, Class<?>> types(Map<String, String> roots, ClassLoader classLoader) {
        Map<String, Class<?>> types = new LinkedHashMap<>();
        roots.forEach((prefix, className) -> {
            if (ClassUtils.isPresent(className, classLoader)) {
                types.put(prefix, ClassUtils.resolveClassName(className, classLoader));
            }
        });
        return types;
    }

    /**
     * Fails on a map key written without brackets that Spring's binder would change, such as a resource
     * {@code openai/gpt-4o} that it reads as {@code openaigpt-4o}: outside brackets a key keeps only letters,
     * digits, {@code -} and {@code _}. Environment variables are left out: their names cannot hold such keys.
     */
    static void checkMapKeys(ConfigurableEnvironment environment, Map<String, Class<?>> types) {
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> enumerable)
                    || source instanceof SystemEnvironmentPropertySource
                    || ConfigurationPropertySources.isAttachedConfigurationPropertySource(source)
                    || source.getName().equals(ListEntryOverrides.NAME)) {
                continue;
            }
            for (String property : enumerable.getPropertyNames()) {
                if (property.startsWith(PREFIX + ".")) {
                    checkMapKeys(property, source, types);
                }
            }
        }
    }

    private static void checkMapKeys(String property, PropertySource<?> source, Map<String, Class<?>> types) {
        List<String> elements = elements(property);
        String prefix = null;
        for (String candidate : types.keySet()) {
            if ((property + ".").startsWith(candidate + ".")
                    && (prefix == null || candidate.length() > prefix.length())) {
                prefix = candidate;
            }
        }
        if (prefix == null) {
            return;
        }
        ResolvableType type = ResolvableType.forClass(types.get(prefix));
        for (int i = prefix.split("\\.").length; i < elements.size(); i++) {
            String element = elements.get(i);
            Class<?> raw = type.resolve(Object.class);
            if (Map.class.isAssignableFrom(raw)) {
                if (!element.startsWith("[")) {
                    ConfigurationPropertyName read = ConfigurationPropertyName.adapt(element, '.');
                    String kept = read.isEmpty() ? "" : read.getElement(0, Form.ORIGINAL);
                    if (!kept.equals(element)) {
                        throw rewrittenKey(join(elements.subList(0, i + 1)), element, kept, property,
                                source);
                    }
                }
                type = type.asMap().getGeneric(1);
            } else if (Collection.class.isAssignableFrom(raw)) {
                type = type.asCollection().getGeneric(0);
            } else if (raw.isArray()) {
                type = type.getComponentType();
            } else if (isValue(raw)) {
                return;
            } else {
                ResolvableType next = relaxed(settings(raw), element);
                if (next == null) {
                    return;                           // not a setting: the unknown-key check reports it
                }
                type = next;
            }
        }
    }

    private static ResolvableType relaxed(Map<String, ResolvableType> settings, String element) {
        String wanted = element.replace("-", "").replace("_", "").toLowerCase(java.util.Locale.ROOT);
        for (Map.Entry<String, ResolvableType> setting : settings.entrySet()) {
            if (setting.getKey().replace("-", "").equals(wanted)) {
                return setting.getValue();
            }
        }
        return null;
    }

    private static String join(List<String> elements) {
        StringBuilder name = new StringBuilder();
        for (String element : elements) {
            name.append(name.isEmpty() || element.startsWith("[") ? "" : ".").append(element);
        }
        return name.toString();
    }

    @SuppressWarnings("unchecked")
    private static InvalidDeclarationException rewrittenKey(String path, String key, String kept, String property,
            PropertySource<?> source) {
        Origin origin = source instanceof OriginLookup<?> ? ((OriginLookup<String>) source).getOrigin(property)
                : null;
        String dropped = key.chars().filter(c -> kept.indexOf(c) < 0).distinct()
                .mapToObj(c -> "'" + (char) c + "'").collect(Collectors.joining(" "));
        return new InvalidDeclarationException(path, "Spring reads the key '" + key + "' as '" + kept + "'"
                + (origin != null ? " (" + origin + ")" : "") + ": outside brackets a key loses " + dropped,
                "Write the key in brackets, in quotes in YAML: \"[" + key + "]\"; in a .properties file or a"
                        + " command-line argument: " + path.substring(0, path.length() - key.length() - 1) + "["
                        + key + "]" + property.substring(path.length()) + ".");
    }

    /** The elements of a property name as written, a bracketed element with its brackets, as one element. */
    private static List<String> elements(String property) {
        List<String> elements = new ArrayList<>();
        StringBuilder element = new StringBuilder();
        int depth = 0;
        for (char c : property.toCharArray()) {
            if (c == '.' && depth == 0) {
                elements.add(element.toString());
                element.setLength(0);
                continue;
            }
            if (c == '[' && depth == 0 && !element.isEmpty()) {
                elements.add(element.toString());
                element.setLength(0);
            }
            depth += c == '[' ? 1 : c == ']' ? -1 : 0;
            element.append(c);
        }
        if (!element.isEmpty()) {
            elements.add(element.toString());
        }
        return elements;
    }

    /** Checks the keys under every prefix of {@code roots} (prefix to properties class name). */
    static void check(Environment environment, Map<String, String> roots, ClassLoader classLoader) {
        Map<String, Class<?>> types = types(roots, classLoader);
        Binder binder = Binder.get(environment);
        Map<String, UnknownPropertiesException.Unknown> unknown = new TreeMap<>();
        types.forEach((prefix, type) -> {
            ConfigurationPropertyName root = ConfigurationPropertyName.of(prefix);
            try {
                binder.bind(root, Bindable.of(type), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
            } catch (BindException e) {
                if (!(e.getCause() instanceof UnboundConfigurationPropertiesException unbound)) {
                    return; // a value that does not convert: Spring's own binding reports it later
                }
                for (ConfigurationProperty property : unbound.getUnboundProperties()) {
                    if (!belongsToAnotherRoot(property.getName(), root, types.keySet())) {
                        unknown.put(property.getName().toString(), describe(property, root, type));
                    }
                }
            }
            // the binder does not report a misspelled key beside valid ones in a list entry: walk every name too
            for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
                if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                    continue;
                }
                iterable.filter(root::isAncestorOf).stream()
                        .filter(name -> !belongsToAnotherRoot(name, root, types.keySet()))
                        .filter(name -> !unknown.containsKey(name.toString()) && !namesSettings(name, root, type))
                        .forEach(name -> unknown.put(name.toString(),
                                describe(iterable.getConfigurationProperty(name), root, type)));
            }
        });
        if (!unknown.isEmpty()) {
            throw new UnknownPropertiesException(List.copyOf(unknown.values()));
        }
    }

    /** Whether every element of {@code name} after {@code root} is a setting, a map key or a list index. */
    private static boolean namesSettings(ConfigurationPropertyName name, ConfigurationPropertyName root,
            Class<?> rootType) {
        ResolvableType type = ResolvableType.forClass(rootType);
        for (int i = root.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
            Class<?> raw = type.resolve(Object.class);
            if (Map.class.isAssignableFrom(raw)) {
                type = type.asMap().getGeneric(1);
                if (isValue(type.resolve(Object.class))) {
                    return true;                      // a map of values takes dotted keys
                }
            } else if (Collection.class.isAssignableFrom(raw)) {
                type = type.asCollection().getGeneric(0);
            } else if (raw.isArray()) {
                type = type.getComponentType();
            } else if (isValue(raw)) {
                return false;
            } else {
                ResolvableType next = relaxed(settings(raw), name.getElement(i, Form.UNIFORM));
                if (next == null) {
                    return false;
                }
                type = next;
            }
        }
        return true;
    }

    private static boolean belongsToAnotherRoot(ConfigurationPropertyName name, ConfigurationPropertyName root,
            Collection<String> prefixes) {
        for (String prefix : prefixes) {
            ConfigurationPropertyName other = ConfigurationPropertyName.of(prefix);
            if (!other.equals(root) && root.isAncestorOf(other) && other.isAncestorOf(name)) {
                return true;
            }
        }
        return false;
    }

    /** Walks the properties classes along the name to the first element that is not a setting. */
    static UnknownPropertiesException.Unknown describe(ConfigurationProperty property, ConfigurationPropertyName root,
            Class<?> rootType) {
        ConfigurationPropertyName name = property.getName();
        String origin = property.getOrigin() != null ? property.getOrigin().toString() : null;
        ResolvableType type = ResolvableType.forClass(rootType);
        boolean afterMapKey = false;
        for (int i = root.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
            Class<?> raw = type.resolve(Object.class);
            if (Map.class.isAssignableFrom(raw)) {
                type = type.asMap().getGeneric(1);
                afterMapKey = true;
                continue;
            }
            if (Collection.class.isAssignableFrom(raw)) {
                type = type.asCollection().getGeneric(0);
                continue;
            }
            if (raw.isArray()) {
                type = type.getComponentType();
                continue;
            }
            String parent = name.chop(i).toString();
            String element = name.getElement(i, Form.DASHED);
            if (isValue(raw)) {
                return new UnknownPropertiesException.Unknown(name.toString(), origin, parent, element, null,
                        List.of());
            }
            Map<String, ResolvableType> settings = settings(raw);
            ResolvableType next = settings.get(element);
            if (next == null) {
                String closest = closest(element, settings.keySet());
                List<String> valid = new ArrayList<>(settings.keySet());
                if (afterMapKey && closest == null) {
                    // "openai.gpt-4" read as the name "openai" followed by "gpt-4"
                    valid.add("(or, when '" + name.getElement(i - 1, Form.ORIGINAL) + "." + element + "' is one name,"
                            + " write it in brackets: \"[" + name.getElement(i - 1, Form.ORIGINAL) + "." + element
                            + "]\")");
                }
                return new UnknownPropertiesException.Unknown(name.toString(), origin, parent, element,
                        closest == null ? null : parent + "." + closest, List.copyOf(valid));
            }
            afterMapKey = false;
            type = next;
        }
        // every element names a setting, yet nothing bound it (a value where a group is expected, say)
        String parent = name.getNumberOfElements() > 1 ? name.getParent().toString() : name.toString();
        return new UnknownPropertiesException.Unknown(name.toString(), origin, parent,
                name.getLastElement(Form.DASHED), null, List.of());
    }

    private static boolean isValue(Class<?> type) {
        return type.isPrimitive() || type.isEnum() || type.getName().startsWith("java.")
                || ClassUtils.isPrimitiveOrWrapper(type);
    }

    /** The settings of a properties class in dashed form, with their types, in declaration order of the getters. */
    private static Map<String, ResolvableType> settings(Class<?> type) {
        Map<String, ResolvableType> settings = new TreeMap<>();
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
                continue;
            }
            settings.put(DataObjectPropertyName.toDashedForm(descriptor.getName()),
                    ResolvableType.forMethodReturnType(descriptor.getReadMethod(), type));
        }
        return settings;
    }

    /** The candidate closest to {@code word} by edit distance, when it is close enough to be a typo. */
    static String closest(String word, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int distance = distance(word, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        int allowed = Math.max(2, Math.min(word.length(), best == null ? 0 : best.length()) / 3);
        return best != null && bestDistance <= allowed ? best : null;
    }

    /** Levenshtein distance, dashes ignored (Spring binds refillamount and refill-amount alike). */
    static int distance(String a, String b) {
        a = a.replace("-", "");
        b = b.replace("-", "");
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
