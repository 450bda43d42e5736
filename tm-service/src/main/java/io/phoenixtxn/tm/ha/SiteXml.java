package io.phoenixtxn.tm.ha;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

/**
 * Reads an hbase-site.xml-style file ({@code <configuration><property><name/><value/></property>...}) with the
 * JDK's DOM parser, so the TM server needs no Hadoop on its class path. The same file can therefore be the cluster's
 * hbase-site.xml. Later properties win, as in Hadoop; {@code ${var}} substitution is not supported.
 */
public final class SiteXml {
    private SiteXml() {
    }

    public static Map<String, String> read(Path file) throws IOException {
        if (!Files.isReadable(file)) {
            throw new IOException("Configuration file " + file + " does not exist or is not readable");
        }
        Document document;
        try (InputStream in = Files.newInputStream(file)) {
            document = newBuilder().parse(in, file.toUri().toString());
        } catch (SAXException e) {
            throw new IOException("Configuration file " + file + " is not well-formed XML: " + e.getMessage(), e);
        }
        Element root = document.getDocumentElement();
        if (!"configuration".equals(root.getTagName())) {
            throw new IOException("Configuration file " + file + " has root <" + root.getTagName() + ">; expected"
                    + " <configuration> with <property><name>..</name><value>..</value></property> entries");
        }
        Map<String, String> values = new LinkedHashMap<>();
        NodeList properties = root.getElementsByTagName("property");
        for (int i = 0; i < properties.getLength(); i++) {
            Element property = (Element) properties.item(i);
            String name = childText(property, "name");
            if (name == null || name.isBlank()) {
                throw new IOException("Configuration file " + file + ": property #" + (i + 1) + " has no <name>");
            }
            String value = childText(property, "value");
            values.put(name.trim(), value == null ? "" : value.trim());
        }
        return values;
    }

    private static String childText(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && tag.equals(e.getTagName())) {
                return e.getTextContent();
            }
        }
        return null;
    }

    /** No DTDs or external entities: a configuration file must not make the server read other files. */
    private static DocumentBuilder newBuilder() throws IOException {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setXIncludeAware(false);
            factory.setExpandEntityReferences(false);
            factory.setNamespaceAware(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            // The default handler prints "[Fatal Error]" to stderr before throwing; the caller reports instead.
            builder.setErrorHandler(new ErrorHandler() {
                @Override
                public void warning(SAXParseException e) {
                }

                @Override
                public void error(SAXParseException e) throws SAXException {
                    throw e;
                }

                @Override
                public void fatalError(SAXParseException e) throws SAXException {
                    throw e;
                }
            });
            return builder;
        } catch (ParserConfigurationException e) {
            throw new IOException("The JDK's XML parser cannot be configured securely", e);
        }
    }
}
