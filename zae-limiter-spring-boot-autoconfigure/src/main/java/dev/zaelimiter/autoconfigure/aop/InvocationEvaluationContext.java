package dev.zaelimiter.autoconfigure.aop;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.ConstructorResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.IndexAccessor;
import org.springframework.expression.MethodResolver;
import org.springframework.expression.OperatorOverloader;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.TypeComparator;
import org.springframework.expression.TypeConverter;
import org.springframework.expression.TypeLocator;
import org.springframework.expression.TypedValue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The evaluation context of one call: its own root object and argument variables, everything else (accessors,
 * resolvers, the bean resolver, converters) shared with one long-lived context so that nothing is set up per call.
 * Arguments are looked up through the method's precomputed name-to-index map rather than copied into variables.
 */
final class InvocationEvaluationContext implements EvaluationContext {

    private final EvaluationContext shared;
    private final TypedValue root;
    private final Map<String, Integer> parameterIndex;
    private final Object[] args;
    private Map<String, Object> variables;

    InvocationEvaluationContext(EvaluationContext shared, Object root, Map<String, Integer> parameterIndex,
            Object[] args) {
        this.shared = shared;
        this.root = new TypedValue(root);
        this.parameterIndex = parameterIndex;
        this.args = args;
    }

    @Override
    public TypedValue getRootObject() {
        return root;
    }

    @Override
    public Object lookupVariable(String name) {
        if (variables != null && variables.containsKey(name)) {
            return variables.get(name);
        }
        Integer index = parameterIndex.get(name);
        return index != null ? args[index] : shared.lookupVariable(name);
    }

    @Override
    public void setVariable(String name, Object value) {
        if (variables == null) {
            variables = new HashMap<>();
        }
        variables.put(name, value);
    }

    @Override
    public List<PropertyAccessor> getPropertyAccessors() {
        return shared.getPropertyAccessors();
    }

    @Override
    public List<IndexAccessor> getIndexAccessors() {
        return shared.getIndexAccessors();
    }

    @Override
    public List<ConstructorResolver> getConstructorResolvers() {
        return shared.getConstructorResolvers();
    }

    @Override
    public List<MethodResolver> getMethodResolvers() {
        return shared.getMethodResolvers();
    }

    @Override
    public BeanResolver getBeanResolver() {
        return shared.getBeanResolver();
    }

    @Override
    public TypeLocator getTypeLocator() {
        return shared.getTypeLocator();
    }

    @Override
    public TypeConverter getTypeConverter() {
        return shared.getTypeConverter();
    }

    @Override
    public TypeComparator getTypeComparator() {
        return shared.getTypeComparator();
    }

    @Override
    public OperatorOverloader getOperatorOverloader() {
        return shared.getOperatorOverloader();
    }
}
